"""The code of a source line that a module's metadata names.

Metadata keeps a file's path and a line number, not the code. The code is the line of the
capture's snapshot of that file (``Module.source_files``, kept by hloscope's captures as the
file was when it ran) when there is one, else of the file as it is now (:mod:`linecache`),
else nothing. What a diff pairs lines by, and what ``explain`` prints beside each line.
"""

from __future__ import annotations

import functools
import linecache
import os
from collections.abc import Mapping

__all__ = ["code_line"]


def code_line(file: str, line: int, snapshot: Mapping[str, str] | None = None) -> str:
    """Line ``line`` (1-based) of ``file``, stripped; "" when unknown."""
    if not file or line <= 0 or file.startswith("<"):
        return ""
    if snapshot:
        text = snapshot.get(file)
        if text is None:
            text = snapshot.get(os.path.realpath(file))
        if text is not None:
            lines = _lines(text)
            return lines[line - 1].strip() if line <= len(lines) else ""
    try:
        return linecache.getline(file, line).strip()
    except (OSError, UnicodeDecodeError, ValueError):  # pragma: no cover - odd files
        return ""


@functools.lru_cache(maxsize=64)
def _lines(text: str) -> list[str]:
    return text.splitlines()

"""The source view's rows, each line's text read from the program's own files.

Files are looked for in the folders the origin names (:meth:`Origin.search_dirs`: the working
folder, then the target's folder and those above it); a file that cannot be found keeps the
text explain gave its line.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..render.html import sections

if TYPE_CHECKING:  # pragma: no cover
    from ..render.html.report import Report
    from ..render.html.sections import ReportSourceRow
    from ._origins import Origin

__all__ = ["source_rows", "CODE_CHARS"]

#: Characters of a source line's text shown in the source view.
CODE_CHARS = 160
#: The largest source file read for its lines.
_MAX_SOURCE_BYTES = 2 << 20


def source_rows(origin: Origin, report: Report) -> list[ReportSourceRow]:
    """The source view's rows (:func:`~hloscope.render.html.sections.source_view`), each
    line's text read from its file where the file can be found (else what explain gave)."""
    lines = _Lines(tuple(origin.search_dirs()))
    out = []
    for row in sections.source_view(report.fusions, report.explanation):
        text = lines.line(row.file, row.line) if row.line is not None else ""
        if text and not row.optimized_away:  # a removed line keeps the text explain gave it
            row = dataclasses.replace(row, code=text)
        out.append(row)
    return out


class _Lines:
    """Lines of source files, each file read once (a few hundred KB at most are kept)."""

    __slots__ = ("_search",)

    def __init__(self, search: tuple[Path, ...]) -> None:
        self._search = search

    def line(self, file: str, number: int) -> str:
        lines = _read_lines(file, self._search)
        if not 1 <= number <= len(lines):
            return ""
        text = lines[number - 1].strip()
        return text if len(text) <= CODE_CHARS else text[: CODE_CHARS - 1] + "\u2026"


@lru_cache(maxsize=64)
def _read_lines(file: str, search: tuple[Path, ...]) -> list[str]:
    path = Path(file)
    candidates = [path] if path.is_absolute() else [d / path for d in search]
    for candidate in candidates:
        try:
            if candidate.suffix == ".py" and candidate.stat().st_size <= _MAX_SOURCE_BYTES:
                return candidate.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
    return []

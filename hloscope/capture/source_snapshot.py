"""The user's source files as they were when a capture ran: ``sources.json`` beside its manifest.

A diff before and after a refactor pairs each line of A with the line of B it became, partly
by the line's code text; ``explain`` shows that text beside each line's ops. The metadata XLA
keeps names only file and line, and the file has often changed since A was captured (the
refactor edited it). So a capture keeps the text of the user's own modules it ran (the files
the cache already hashes, :func:`hloscope.capture.cache.local_module_files`), each only if it
still has the content it had when it ran (its recorded hash), within a size budget. Readers
take a line from the snapshot when there is one, else from the file as it is now.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

__all__ = ["SOURCES_FILE", "write_snapshot", "read_snapshot"]

SOURCES_FILE = "sources.json"
# A larger file is not kept (generated code, data in a .py); nor any file past the total.
MAX_FILE_BYTES = 1 << 20
MAX_TOTAL_BYTES = 8 << 20


def write_snapshot(
    folder: Path,
    recorded: Mapping[str, str | None] | None,
    also: Mapping[str, str] | None = None,
) -> int:
    """Write ``folder/sources.json`` with the text of each file of ``recorded``
    (``{path: sha256}``) whose content is still the one recorded, and the texts of ``also``
    (``{path: text}`` read when the run began: the script itself); how many were kept."""
    texts: dict[str, str] = {}
    total = 0
    for path, text in (also or {}).items():
        if len(text) <= MAX_FILE_BYTES:
            texts[path] = text
            total += len(text)
    for path, digest in sorted((recorded or {}).items()):
        try:
            size = Path(path).stat().st_size
        except OSError:
            continue
        if path in texts or digest is None or size > MAX_FILE_BYTES:
            continue
        if total + size > MAX_TOTAL_BYTES:
            continue
        try:
            data = Path(path).read_bytes()
        except OSError:
            continue
        if hashlib.sha256(data).hexdigest() != digest:  # edited since it ran: not what ran
            continue
        texts[path] = data.decode("utf-8", errors="replace")
        total += size
    if not texts:
        return 0
    try:
        (folder / SOURCES_FILE).write_text(json.dumps(texts))
    except OSError:  # a full disk: the capture stands without it (readers use the files)
        return 0
    return len(texts)


def read_snapshot(folder: Path | None) -> dict[str, str]:
    """``{path: text}`` of the snapshot in ``folder`` (``{}`` when there is none or it is
    unreadable: readers then take the files as they are)."""
    if folder is None:
        return {}
    try:
        texts = json.loads((folder / SOURCES_FILE).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(texts, dict):
        return {}
    return {str(k): v for k, v in texts.items() if isinstance(v, str)}

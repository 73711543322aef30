"""Which file of a TRACE argument to read.

A TRACE is what ``jax.profiler.trace(DIR)`` wrote: the folder ``DIR`` itself, TensorBoard's
``DIR/plugins/profile/<run>/``, or one file of it, ``<host>.trace.json.gz`` or
``<host>.xplane.pb``. In a folder, the newest run is read (runs are named by their date, so
the last in name order), and of a run the ``*.trace.json.gz`` when there is one: the core
install reads it without jax, and it holds the same events as the ``*.xplane.pb`` beside it.
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path

from .errors import TracePathError

__all__ = ["TraceFormat", "trace_file", "trace_format"]


class TraceFormat(StrEnum):
    """The two files a profile run holds."""

    CHROME = "trace.json.gz"
    XPLANE = "xplane.pb"


_SUFFIXES = {
    ".trace.json.gz": TraceFormat.CHROME,
    ".trace.json": TraceFormat.CHROME,
    ".xplane.pb": TraceFormat.XPLANE,
}


def trace_format(path: Path) -> TraceFormat | None:
    """The format a file's name says it is in, or ``None``."""
    name = path.name
    for suffix, fmt in _SUFFIXES.items():
        if name.endswith(suffix):
            return fmt
    return None


def trace_file(spec: str | os.PathLike[str], prefer: TraceFormat = TraceFormat.CHROME) -> Path:
    """The trace file ``spec`` names (see the module docstring); ``prefer`` picks which of a
    run's two files is read when both are there."""
    path = Path(spec)
    if not path.exists():
        raise TracePathError(f"{spec}: no such file or folder")
    if path.is_file():
        if trace_format(path) is None:
            raise TracePathError(
                f"{spec}: not a profiler trace (expected a *.trace.json.gz or *.xplane.pb "
                "file, or the folder jax.profiler.trace wrote)"
            )
        return path
    found = sorted(p for p in path.rglob("*") if p.is_file() and trace_format(p) is not None)
    if not found:
        raise TracePathError(
            f"{spec}: holds no profiler trace (no *.trace.json.gz or *.xplane.pb below it)"
        )
    newest_run = max(p.parent for p in found)
    run = [p for p in found if p.parent == newest_run]
    preferred = [p for p in run if trace_format(p) is prefer]
    return (preferred or run)[0]

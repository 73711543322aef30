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

from ..analysis.diff import parse_where
from ..analysis.fusions import UNKNOWN_SOURCE
from ..analysis.fusions import source_rows as kernel_source_rows
from ..render.html.sections import LineStages, ReportSourceRow

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.fusions import FusionReport
    from ..render.html.report import Report
    from ..render.html.sections import Explained
    from ._origins import Origin

__all__ = ["source_rows", "source_view", "CODE_CHARS"]

#: Characters of a source line's text shown in the source view.
CODE_CHARS = 160
#: The largest source file read for its lines.
_MAX_SOURCE_BYTES = 2 << 20


def source_rows(origin: Origin, report: Report) -> list[ReportSourceRow]:
    """The source view's rows (:func:`source_view`), each line's text read from its file
    where the file can be found (else what explain gave)."""
    lines = _Lines(tuple(origin.search_dirs()))
    out = []
    for row in source_view(report.fusions, report.explanation):
        text = lines.line(row.file, row.line) if row.line is not None else ""
        if text and not row.optimized_away:  # a removed line keeps the text explain gave it
            row = dataclasses.replace(row, code=text)
        out.append(row)
    return out


def source_view(report: FusionReport, explanation: Explained | None) -> list[ReportSourceRow]:
    """The source view's rows in the program's order: the kernels of each source line
    (:func:`~hloscope.analysis.fusions.source_rows`), each with its stages and the text
    :mod:`hloscope.analysis.explain` gave its line, then the lines whose ops were all
    optimized away."""
    index: dict[str, int] = {}
    for i, k in enumerate(report.kernels):
        index.setdefault(k.name, i)
    out = []
    for row in kernel_source_rows(report):
        source = row["source"]
        parsed = parse_where(source) if source != UNKNOWN_SOURCE else None
        file, line, function = parsed if parsed is not None else ("", None, "")
        stages = explanation.of(source) if explanation is not None else None
        out.append(
            ReportSourceRow(
                source=source,
                file=file,
                line=line,
                function=function,
                code=stages.code if stages is not None else "",
                ops=row["ops"],
                kernels=[(name, index.get(name)) for name in row["kernels"]],
                flops=row["flops"],
                transcendentals=row["transcendentals"],
                stages=stages,
            )
        )
    if explanation is not None:
        out.extend(_away_lines(explanation))
    return sorted(out, key=_line_order)


def _away_lines(explanation: Explained) -> list[ReportSourceRow]:
    """The lines whose ops were all optimized away, as rows of the source view."""
    rows = []
    for source, code, counts in explanation.away:
        parsed = parse_where(source)
        file, line, function = parsed if parsed is not None else ("", None, "")
        stages = LineStages(counts=dict(counts), code=code)
        rows.append(ReportSourceRow(source, file, line, function, code, 0, [], 0, 0, stages, True))
    return rows


def _line_order(row: ReportSourceRow) -> tuple[bool, str, int, str]:
    """The program's order: file by file, line by line; lines of no file (TensorFlow layer
    paths) by name after them, the ops with no source last."""
    return (row.source == UNKNOWN_SOURCE, row.file, row.line or 0, row.source)


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

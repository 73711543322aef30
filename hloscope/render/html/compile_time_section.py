"""The report's compile-time section: where the compile's time went and what makes it slow
(:mod:`hloscope.analysis.compile_time`), as rows ready for the template.

Only words and numbers already formatted; the template escapes every value (pass names,
source lines and code come from the compiler's files and the user's).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...analysis.compile_time import BACKEND_REST
from ..bench_text import format_seconds

if TYPE_CHECKING:  # pragma: no cover
    from ...analysis.compile_time import CompileTime

__all__ = ["CompileTimeSection", "CompileTimeRow", "compile_time_section", "SECTION_ROWS"]

#: The most passes and lines the page lists.
SECTION_ROWS = 25


@dataclass(frozen=True, slots=True)
class CompileTimeRow:
    """One row: a name, its time (or counts) as text, a share of the whole, what it is."""

    name: str
    value: str
    share: float | None = None
    detail: str = ""


@dataclass(slots=True)
class CompileTimeSection:
    """The head (what compiled, in how long), the stages, the slowest passes, the lines by
    instructions, the causes with their fixes, the notes."""

    head: str
    stages: list[CompileTimeRow]
    passes: list[CompileTimeRow]
    lines: list[CompileTimeRow]
    findings: list[CompileTimeRow]
    notes: list[str] = field(default_factory=list)


def _seconds(value: float | None) -> str:
    return format_seconds(value) if value is not None else "not measured"


def compile_time_section(report: CompileTime) -> CompileTimeSection | None:
    """The section of ``report``; ``None`` when nothing of the compile was timed."""
    s = report.stages
    if report.total_s is None and s.hlo_passes_s is None:
        return None
    total = report.total_s
    where = report.compiled_for or "an unnamed device"
    head = f"{report.module}, compiled for {where}" + (
        f" in {format_seconds(total)}" if total is not None else ""
    )
    rest = BACKEND_REST if s.hlo_passes_s is not None else "XLA's whole backend compile"
    if s.before_passes_s is not None and s.after_passes_s is not None:
        rest += (
            f"; {format_seconds(s.before_passes_s)} before the first pass, "
            f"{format_seconds(s.after_passes_s)} after the last"
        )
    stages = [
        CompileTimeRow("trace", _seconds(s.trace_s), _share(s.trace_s, total), "Python to jaxpr"),
        CompileTimeRow("lower", _seconds(s.lower_s), _share(s.lower_s, total), "to StableHLO"),
        CompileTimeRow(
            "HLO passes", _seconds(s.hlo_passes_s), _share(s.hlo_passes_s, total), "XLA"
        ),
        CompileTimeRow("backend", _seconds(s.backend_s), _share(s.backend_s, total), rest),
    ]
    passes = [
        CompileTimeRow(
            p.name, format_seconds(p.time_s), None, f"{p.runs} runs, most in {p.pipeline}"
        )
        for p in report.passes[:SECTION_ROWS]
    ]
    lines = [
        CompileTimeRow(
            line.source,
            f"{line.instructions_before:,} before, {line.instructions_after:,} after",
            line.instructions_before / max(1, report.instructions_before),
            line.code,
        )
        for line in report.lines[:SECTION_ROWS]
    ]
    findings = [
        CompileTimeRow(f.source, f"{f.message}", f.share, f"Instead: {f.fix}")
        for f in report.findings
    ]
    return CompileTimeSection(head, stages, passes, lines, findings, list(report.notes))


def _share(value: float | None, total: float | None) -> float | None:
    return value / total if value is not None and total else None

"""The environment part of ``hloscope diff`` as text: the versions that changed, the compile
time per stage A against B with the ratio, and the HLO passes whose time changed most, in
``width`` columns (80 when piped). See :mod:`hloscope.analysis.diff.environment`."""

from __future__ import annotations

import textwrap

from ..analysis.compile_time import CompileStage
from ..analysis.diff.environment import EnvironmentDiff
from .compile_time_text import compile_seconds
from .terminal import printable, shorten_middle

__all__ = ["environment_lines"]

_STAGE_LABELS = {
    CompileStage.TRACE: "trace (JAX)",
    CompileStage.LOWER: "lower (JAX)",
    CompileStage.HLO_PASSES: "HLO passes (XLA)",
    CompileStage.BACKEND: "backend (XLA, rest)",
    CompileStage.TOTAL: "total",
}
_NUMBERS = 30  # three columns of 9 and a ratio of 7, with their gaps


def _ratio(value: float | None) -> str:
    return f"{value:.2f}x" if value is not None else ""


def _versions(versions: dict[str, str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in versions.items()) or "none recorded"


def _wrap(text: str, width: int, first: str = "", indent: str = "    ") -> list[str]:
    return textwrap.wrap(
        text,
        width=width,
        initial_indent=first,
        subsequent_indent=indent,
        break_on_hyphens=False,
        break_long_words=False,
    ) or [first]


def _row(label: str, a: str, b: str, ratio: str, width: int) -> str:
    name = shorten_middle(label, max(12, width - _NUMBERS - 2))
    return f"  {name:<{max(12, width - _NUMBERS - 2)}}{a:>9}{b:>10}{ratio:>11}"


def environment_lines(result: EnvironmentDiff, *, width: int = 80) -> list[str]:
    """The section's lines, each at most ``width`` columns (60 at least)."""
    width = max(width, 60)
    out = ["environment (A -> B)"]
    if result.changed:
        changes = ", ".join(f"{c.package} {c.a or '-'} -> {c.b or '-'}" for c in result.changed)
        out += _wrap(f"changed: {changes}", width, first="  ")
    else:
        out += ["  the same versions on both sides"]
    out += _wrap(f"A: {_versions(result.versions_a)}", width, first="  ")
    out += _wrap(f"B: {_versions(result.versions_b)}", width, first="  ")
    if result.compiled_for_a != result.compiled_for_b:
        out += [f"  compiled for: A {result.compiled_for_a}, B {result.compiled_for_b}"]
    out += ["", _row("compile time", "A", "B", "B/A", width)]
    for stage in result.stages:
        out.append(
            _row(
                _STAGE_LABELS[stage.stage],
                compile_seconds(stage.a_s),
                compile_seconds(stage.b_s),
                _ratio(stage.ratio),
                width,
            )
        )
    if result.passes:
        out += ["", _row(f"HLO passes changed most ({result.pass_names})", "A", "B", "B/A", width)]
        for change in result.passes:
            label = f"{change.name} ({change.pipeline})" if change.pipeline else change.name
            a_s, b_s = compile_seconds(change.a_s), compile_seconds(change.b_s)
            out.append(_row(label, a_s, b_s, _ratio(change.ratio), width))
    for note in result.notes:
        out += _wrap(f"note: {note}", width, first="  ")
    return [printable(line) for line in out]

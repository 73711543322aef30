"""``hloscope compile-time`` as text: the stages, the slowest passes and pipelines, the lines
that make the program large, and the known causes with their fixes, in ``width`` columns
(80 when piped)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from ..analysis.compile_time import BACKEND_REST, CompileTime
from .sources import short_source, shorten_source
from .terminal import printable, shorten_middle

__all__ = ["render_compile_time", "compile_seconds"]


def compile_seconds(value: float | None) -> str:
    """A compile's duration as its report says it: ``12 ms``, ``340 us``, ``2.41 s``."""
    if value is None:
        return "-"
    if value < 1:
        return f"{value * 1000:.0f} ms" if value >= 0.001 else f"{value * 1e6:.0f} us"
    return f"{value:.2f} s"


def _share(value: float | None, total: float | None) -> str:
    if value is None or not total:
        return ""
    return f"{value / total:.0%}"


def render_compile_time(
    report: CompileTime, echo: Callable[[str], object], *, width: int = 80, top: int = 10
) -> None:
    """Print ``report`` line by line through ``echo``."""
    width = max(width, 60)
    for line in _lines(report, width, top):
        echo(printable(line)[:width] if len(line) > width else printable(line))


def _wrap(text: str, width: int, indent: str = "  ", first: str | None = None) -> list[str]:
    return textwrap.wrap(
        text,
        width=width,
        initial_indent=indent if first is None else first,
        subsequent_indent=indent,
        break_long_words=True,
        break_on_hyphens=False,
    ) or [indent]


def _lines(report: CompileTime, width: int, top: int) -> list[str]:
    out = _header(report, width)
    out += _stage_lines(report, width)
    if report.passes:
        out += ["", *_pass_lines(report, width, top)]
        out += ["", *_pipeline_lines(report, width, min(top, 8))]
    out += ["", *_line_lines(report, width, top)]
    out += ["", *_finding_lines(report, width)]
    for note in report.notes:
        out += ["", *_wrap(f"note: {note}", width, indent="  ", first="")]
    return out


def _header(report: CompileTime, width: int) -> list[str]:
    total = f" in {compile_seconds(report.total_s)}" if report.total_s is not None else ""
    if report.compiled_for is None:  # a dump, or an estimate: say nothing it does not know
        where = f" for {report.device} (an estimate)" if report.device else ""
        head = f"{report.module}: compiled{where}{total}" if where or total else report.module
        return _wrap(head, width, indent="  ", first="")
    where = report.compiled_for + (f" ({report.device})" if report.device else "")
    return _wrap(f"{report.module}: compiled for {where}{total}", width, indent="  ", first="")


def _stage_lines(report: CompileTime, width: int) -> list[str]:
    s = report.stages
    total = report.total_s
    rows = [
        ("trace", s.trace_s, "Python to jaxpr (JAX)"),
        ("lower", s.lower_s, "jaxpr to StableHLO (JAX)"),
        ("HLO passes", s.hlo_passes_s, "XLA's optimization passes (below)"),
        (
            "backend",
            s.backend_s,
            BACKEND_REST
            if s.hlo_passes_s is not None
            else "XLA's whole backend compile (no pass times for it)",
        ),
        ("other", s.other_s, "JAX's own steps between the stages"),
    ]
    out = [""]
    for name, value, what in rows:
        if value is None and name == "other":
            continue
        if value is None:
            what = "not measured for this target"
        head = f"  {name:<11}{compile_seconds(value):>9} {_share(value, total):>4}  "
        out += _wrap(what, width, indent=" " * len(head), first=head)
        if name == "backend" and s.before_passes_s is not None and s.after_passes_s is not None:
            text = (
                f"({compile_seconds(s.before_passes_s)} before the first pass, "
                f"{compile_seconds(s.after_passes_s)} after the last)"
            )
            out += _wrap(text, width, indent=" " * len(head), first=" " * len(head))
    if report.hloscope_s is not None:
        out += _wrap(
            f"hloscope's own time around the compile: {compile_seconds(report.hloscope_s)} "
            "(not part of it)",
            width,
            first="  ",
        )
    return out


def _pass_lines(report: CompileTime, width: int, top: int) -> list[str]:
    runs = sum(p.runs for p in report.passes)
    out = _wrap(
        f"Slowest HLO passes ({len(report.passes)} passes, {runs} runs; "
        "time summed over each pass's runs)",
        width,
        first="",
    )
    with_delta = any(p.instructions_delta is not None for p in report.passes)
    fixed = 9 + 6 + 8 + (8 if with_delta else 0)
    name_w = max(12, (width - 2 - fixed) // 2)
    pipe_w = width - 2 - fixed - name_w - 2
    header = f"  {'pass':<{name_w}} {'pipeline':<{pipe_w}} {'time':>9}{'runs':>6}{'changed':>8}"
    out.append(header + (f"{'instrs':>8}" if with_delta else ""))
    for p in report.passes[:top]:
        row = (
            f"  {shorten_middle(p.name, name_w):<{name_w}} "
            f"{shorten_middle(p.pipeline, pipe_w):<{pipe_w}} "
            f"{compile_seconds(p.time_s):>9}{p.runs:>6}{p.changed_runs:>8}"
        )
        if with_delta:
            delta = p.instructions_delta
            row += f"{(f'{delta:+d}' if delta is not None else '-'):>8}"
        out.append(row)
    if len(report.passes) > top:
        out.append(f"  ... {len(report.passes) - top} more (--top N, or --json)")
    return out


def _pipeline_lines(report: CompileTime, width: int, top: int) -> list[str]:
    out = ["Slowest pipelines (a nested one is also inside its parent's time)"]
    name_w = width - 2 - 9 - 6
    for p in report.pipelines[:top]:
        name = p.name if p.parent is None else f"{p.name} (in {p.parent})"
        time = compile_seconds(p.time_s)
        out.append(f"  {shorten_middle(name, name_w):<{name_w}}{time:>9}{p.runs:>5}x")
    return out


def _line_lines(report: CompileTime, width: int, top: int) -> list[str]:
    out = _wrap(
        f"Your lines by instructions made ({report.instructions_before:,} before "
        f"optimization, {report.instructions_after:,} after)",
        width,
        first="",
    )
    if not report.lines:
        return [*out, "  (no instruction names a line of your code)"]
    source_w = min(34, width // 2 - 4)
    code_w = width - 2 - source_w - 16
    out.append(f"  {'line':<{source_w}} {'before':>7} {'after':>7} code")
    for line in report.lines[:top]:
        out.append(
            f"  {shorten_source(line.source, source_w):<{source_w}} "
            f"{line.instructions_before:>7,} {line.instructions_after:>7,} "
            f"{shorten_middle(line.code, max(code_w, 8))}"
        )
    if len(report.lines) > top:
        out.append(f"  ... {len(report.lines) - top} more lines (--top N, or --json)")
    return out


def _finding_lines(report: CompileTime, width: int) -> list[str]:
    if not report.findings:
        return [
            "What makes this compile slow: no known cause found (no unrolled loop, large",
            "constant or flood of tiny ops)",
        ]
    out = ["What makes this compile slow"]
    for f in report.findings:
        where = short_source(f.source) or "(no line)"
        head = f"  {where}  {f.code}" if f.code else f"  {where}"
        out.append(shorten_middle(head, width))
        out += _wrap(f"{f.cause.replace('_', ' ')}: {f.message}", width, indent="    ")
        out += _wrap(f"instead: {f.fix}", width, indent="    ")
    return out

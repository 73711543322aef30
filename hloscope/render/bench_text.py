"""Terminal output of ``hloscope bench``: the program's timing and roofline, then its kernels.

The summary comes first (what ran where, how long, how close to the device's roof), then with
``--per-kernel`` one line per kernel, slowest first (time per run, share, achieved bandwidth,
compute- or memory-bound, source line), fitted to the terminal the way the fusion table is
(:func:`~hloscope.render.table_fit.fit_columns`: the essential columns always, the others
while they fit, long names shortened in the middle), and the kernels that were skipped, with
the reason. A comparison (``--vs``) shows both programs' lines and the verdict.

Times read in the unit that keeps three figures (``812 ns``, ``45.6 µs``, ``1.23 ms``);
rates in decimal units as vendors state them (``12.3 GFLOP/s``, ``819 GB/s``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..units import TIME_UNITS, format_bytes, format_count, format_duration
from .async_table import print_async_table
from .sources import short_source, shorten_source
from .table_fit import Column, fitted_table, print_table
from .terminal import printable

if TYPE_CHECKING:  # pragma: no cover
    from ..bench.api import BenchComparison, BenchResult

__all__ = [
    "TIME_UNITS",
    "format_seconds",
    "format_rate",
    "render_bench",
    "render_comparison",
    "KERNEL_COLUMNS",
]

_RATE_UNITS = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))

#: Every duration of bench and profile reads through :func:`hloscope.units.format_duration`.
format_seconds = format_duration


def format_rate(value: float | None, unit: str) -> str:
    """``1.23e10, "FLOP/s"`` -> ``12.3 GFLOP/s``; ``None`` -> ``-``."""
    if value is None or not math.isfinite(value):
        return "-"
    for scale, prefix in _RATE_UNITS:
        if abs(value) >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def _percent(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.0%}"


def _kernel_source(row: Mapping[str, Any]) -> str:
    return short_source(row.get("source") or "")


def _each(row: Mapping[str, Any]) -> str:
    """One execution's time, or ``< bound`` for a kernel below resolution (never ``0 s``)."""
    if row.get("median_s") is None and row.get("below_s") is not None:
        return "< " + format_seconds(row["below_s"])
    return format_seconds(row.get("median_s"))


def _per_run(row: Mapping[str, Any]) -> str:
    if row.get("median_s") is None and row.get("below_s") is not None:
        return "< " + format_seconds(row["below_s"] * (row.get("executions") or 1))
    return format_seconds(row["total_s"])


def _executions(row: Mapping[str, Any]) -> str:
    return f"{row['executions']:g}"


KERNEL_COLUMNS: dict[str, Column] = {
    "kernel": Column("kernel", lambda r: r["name"], min_width=14, comfortable=24),
    "kind": Column("kind", lambda r: r["kind"], min_width=6),
    "where": Column("where", lambda r: r["where"], min_width=10, comfortable=16),
    "time": Column("time/run", _per_run, right=True),
    "share": Column("share", lambda r: _percent(r["share"]), right=True),
    "x": Column("×", _executions, right=True),
    "each": Column("each", _each, right=True),
    "fps": Column("FLOP/s", lambda r: format_rate(r["flops_per_s"], "FLOP/s"), right=True),
    "flops": Column("flops", lambda r: format_count(r["flops"]), right=True),
    "bytes": Column("bytes", lambda r: format_bytes(r["bytes"]), right=True),
    "bw": Column("bytes/s", lambda r: format_rate(r["bytes_per_s"], "B/s"), right=True),
    "bound": Column("bound", lambda r: "async" if r.get("async") else r["bound"] or "-"),
    "roof": Column("roof", lambda r: _percent(r["roofline_fraction"]), right=True),
    "profile": Column("in program", lambda r: format_seconds(r["profile_s"]), right=True),
    "source": Column(
        "source", _kernel_source, min_width=20, shorten=shorten_source, comfortable=28
    ),
}
_ESSENTIAL = ("kernel", "time", "share", "bound", "source")
_OPTIONAL = ("roof", "bw", "fps", "bytes", "flops", "x", "each", "kind", "where")


def _line(console: Any, *parts: tuple[str, str] | str) -> None:
    from rich.text import Text

    _hanging(
        console, Text.assemble(*((printable(p), "") if isinstance(p, str) else p for p in parts))
    )


# A line's label column: `peak      ...` (a word and two or more spaces), or its own indent.
_LABEL = re.compile(r"^(?:\s*\S+\s{2,}|\s+|note: )")


def _hanging(console: Any, text: Any) -> None:
    """Print ``text`` wrapped to the console with its continuation lines under its first
    word after the label (``peak      ...`` goes on 10 columns in), as the table's cells do."""
    found = _LABEL.match(text.plain)
    indent = found.end() if found is not None else 0
    width = console.width
    if indent >= width // 2 or text.cell_len <= width:
        console.print(text)
        return
    lines = text.wrap(console, width - indent)
    for number, line in enumerate(lines):
        if number:
            line = line.copy()
            line.pad_left(indent)
        console.print(line, soft_wrap=True)


def _timing_lines(result: BenchResult) -> list[tuple]:
    t = result.timing
    precision = "" if math.isinf(t.precision) else f" ±{t.precision:.1%}"
    return [
        (
            ("time      ", "dim"),
            ("median ", "dim"),
            (format_seconds(t.median_s), "bold"),
            precision,
            (f", {t.runs} runs", "dim"),
        ),
        (
            ("          min ", "dim"),
            format_seconds(t.min_s),
            ("  p10 ", "dim"),
            format_seconds(t.p10_s),
            ("  p90 ", "dim"),
            format_seconds(t.p90_s),
            ("  spread ", "dim"),
            _percent(t.spread),
        ),
    ]


def _work_line(result: BenchResult) -> tuple:
    line = result.roofline
    return (
        ("work      ", "dim"),
        f"{format_count(result.flops)} FLOP, {format_bytes(result.bytes)} per run",
        ("; achieved ", "dim"),
        f"{format_rate(line.flops_per_s, 'FLOP/s')}, {format_rate(line.bytes_per_s, 'B/s')}",
    )


def _peak_lines(result: BenchResult) -> list[tuple]:
    line = result.roofline
    if line.peak_flops_per_s is None or result.peak is None:
        return []
    bound = f"{line.bound.value}-bound" if line.bound is not None else "no work to place"
    at = f", at {_percent(line.fraction)} of the roof" if line.fraction is not None else ""
    peak = f"{format_rate(line.peak_flops_per_s, 'FLOP/s')} {line.element_type or ''}".rstrip()
    # A measured CPU has a cache roof and a main-memory roof: say which one the bytes met.
    level = ""
    if line.memory_level is not None and len(result.peak.memory_roofs()) > 1:
        level = f" ({_LEVEL_WORDS.get(line.memory_level.value, line.memory_level.value)})"
    return [
        (("roofline  ", "dim"), (bound, "bold"), at),
        (
            ("peak      ", "dim"),
            f"{peak}, {format_rate(line.peak_bytes_per_s, 'B/s')}{level}",
            (f": {result.peak.name}", "dim"),
        ),
        (("          ", "dim"), (result.peak.source, "dim")),
    ]


_LEVEL_WORDS = {
    "cache": "its working set fits in the last-level cache",
    "memory": "main memory: its working set is larger than the last-level cache",
}


def _program_summary(result: BenchResult, console: Any) -> None:
    _line(console, ("module    ", "dim"), (result.module, "bold"), ("  on ", "dim"), result.device)
    for parts in (*_timing_lines(result), _work_line(result), *_peak_lines(result)):
        _line(console, *parts)


def _kernel_summary(result: BenchResult, console: Any) -> None:
    if not result.per_kernel:
        return
    if result.timed == "in program":
        _traced_summary(result, console)
        return
    total = result.kernels_total_s
    program = result.timing.median_s
    ratio = f" ({total / program:.0%})" if program > 0 else ""
    _line(
        console,
        ("kernels   ", "dim"),
        f"{len(result.kernels)} timed alone, {len(result.skipped)} skipped",
    )
    _line(
        console,
        ("          sum ", "dim"),
        (format_seconds(total), "bold"),
        (" per run beside the program's ", "dim"),
        (format_seconds(program), "bold"),
        ratio,
    )
    if result.launch_s is not None:
        _line(
            console,
            (
                f"          each net of a {format_seconds(result.launch_s)} launch "
                "(an empty module's time)",
                "dim",
            ),
        )
    profile = result.profile
    if profile is None:
        return
    if profile.available:
        _line(
            console,
            ("profile   ", "dim"),
            "inside the program (a trace): kernels sum ",
            (format_seconds(sum(profile.times.values())), "bold"),
            (" per run; column 'in program'", "dim"),
        )
    else:
        _line(console, ("profile   ", "dim"), (f"not available: {profile.reason}", "yellow"))


def _traced_summary(result: BenchResult, console: Any) -> None:
    """Kernels timed inside the program: their sum against the wall time, and the gap."""
    summary = result.per_kernel_summary() or {}
    if not result.kernels:
        _line(console, ("kernels   ", "dim"), ("no times: " + summary.get("reason", ""), "yellow"))
        return
    device, wall = summary.get("device_time_s"), summary.get("wall_s")
    _line(
        console,
        ("kernels   ", "dim"),
        f"{len(result.kernels)} timed inside the program, from a trace of "
        f"{summary.get('steps')} steps",
    )
    parts: list[tuple[str, str] | str] = [
        ("          sum ", "dim"),
        (format_seconds(device), "bold"),
        (" per step beside the program's ", "dim"),
        (format_seconds(wall), "bold"),
    ]
    if device is not None and wall:
        parts.append(f" ({device / wall:.0%}); gap {format_seconds(wall - device)}")
    _line(console, *parts)


def _notes(notes: list[str], console: Any) -> None:
    from rich.text import Text

    for note in dict.fromkeys(notes):
        _hanging(console, Text("note: " + printable(note), style="yellow"))


def render_bench(
    result: BenchResult, console: Any, *, wide: bool = False, top: int | None = None
) -> None:
    """The summary, then (with kernels) the kernel table and the skipped kernels."""
    from rich.text import Text

    _program_summary(result, console)
    _kernel_summary(result, console)
    _notes(result.notes, console)
    rows = result.kernel_rows()
    if rows:
        shown = rows if top is None else rows[:top]
        optional = list(_OPTIONAL)
        if any(r.get("profile_s") is not None for r in rows):
            optional.insert(0, "profile")
        table, needed = fitted_table(
            shown, KERNEL_COLUMNS, _ESSENTIAL, optional, console.width, wide
        )
        console.print()
        print_table(console, table, needed if wide else 0)
        if len(shown) < len(rows):
            console.print(Text(left_out_line(rows, len(shown)), style="dim"))
        _async_lines(result, console, wide, top)
    if result.skipped:
        console.print()
        console.print(Text(f"skipped {len(result.skipped)}:", style="bold"))
        for skip in result.skipped:
            console.print(
                Text.assemble("  ", printable(skip.name), (": " + printable(skip.reason), "dim"))
            )


#: Kernels the text shows without --top or --all (the JSON has them all).
DEFAULT_TOP = 20


def left_out_line(rows: list[dict[str, Any]], shown: int) -> str:
    """``(20 of 469 kernels shown; the other 449 hold 12.3% of the time: --top N, --all)``."""
    rest = rows[shown:]
    share = sum(r.get("share") or 0.0 for r in rest)
    return (
        f"({shown} of {len(rows)} kernels shown; the other {len(rest)} hold "
        f"{share:.1%} of the time: --top N or --all for more)"
    )


def _async_lines(result: BenchResult, console: Any, wide: bool, top: int | None) -> None:
    """The async pairs of the traced steps, most exposed first: the span from start to done,
    how much of it other kernels hid and how much was exposed (no roofline: see
    :mod:`hloscope.analysis.op_profile.overlap`)."""
    from rich.text import Text

    overlaps = result.overlaps
    if not overlaps:
        return
    rows = [o.row() for o in overlaps[:top]]
    assert result.traced is not None and result.traced.profile is not None  # overlaps: traced
    found = result.traced.profile
    console.print()
    _hanging(
        console,
        Text(
            f"async     {len(overlaps)} pairs (start to done; their transfer has no roofline):"
            f" in flight {format_seconds(found.async_in_flight_s)} per step, "
            f"{format_seconds(found.async_exposed_s)} of it exposed (no other kernel running)"
        ),
    )
    print_async_table(console, rows, len(overlaps), ("share", "bytes", "op"), wide, _percent)


def render_comparison(comparison: BenchComparison, console: Any, labels: tuple[str, str]) -> None:
    """A's and B's timings, then the verdict."""
    from rich.text import Text

    for name, result in (("A", comparison.a), ("B", comparison.b)):
        console.print(
            Text.assemble((f"{name}  ", "bold"), printable(labels[0 if name == "A" else 1]))
        )
        _program_summary(result, console)
        console.print()
    c = comparison.comparison
    style = (
        "bold green" if c.significant and c.ratio < 1 else "bold red" if c.significant else "bold"
    )
    console.print(Text(printable(c.verdict), style=style))
    _notes(comparison.a.notes + comparison.b.notes, console)

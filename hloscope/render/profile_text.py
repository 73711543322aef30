"""Terminal output of ``hloscope profile``: the op profile of a trace, and two side by side.

First what was read (the trace, the device, the module, the steps and how they were counted,
the device time per step; in a trace of several devices, their busy times, the slowest and
which one is shown), then each step's wall time against the device's busy time and the idle
share (with the host question when the chip is idle most of each step), then the kernels
slowest first (time per step, share, occurrences, kind, FLOPs and HBM bytes per step, bound
and roofline position, ``async`` for an async op, source line), then the time by kind, by
source line and by ``op_name`` scope, the async pairs (span, hidden, exposed), and the notes.
Tables are fitted to the terminal (80 columns when piped) by
:func:`~hloscope.render.table_fit.fitted_table`: the essential columns always, the others
while they fit. ``--vs`` shows A's and B's time per step for each kernel and each source line,
largest change first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..units import TIME_UNITS, format_bytes, format_count, format_duration
from .async_table import print_async_table
from .sources import short_source, shorten_source
from .table_fit import Column, fitted_table, print_table
from .terminal import printable, shorten_middle

format_seconds = format_duration  # every duration reads one way (hloscope.units)

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.op_profile import DeviceSpread, OpProfile, ProfileComparison

__all__ = [
    "render_profile",
    "render_profile_comparison",
    "profile_csv_rows",
    "devices_line",
    "KERNEL_COLUMNS",
]


def _percent(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.1%}"


def _bound(row: Mapping[str, Any]) -> str:
    bound = row["bound"]
    if row.get("async"):
        return "async"  # its transfer is in the async table, not under a roof
    if not bound:
        return "-"
    fraction = row["fraction"]
    if fraction is None:
        return bound
    return f"{bound} {fraction:.0%}" + ("?" if fraction > 1 else "")


KERNEL_COLUMNS: dict[str, Column] = {
    "kernel": Column("kernel", lambda r: r["name"], min_width=12, comfortable=22),
    "time": Column("time/step", lambda r: format_seconds(r["time_s"]), right=True),
    "share": Column("share", lambda r: _percent(r["share"]), right=True),
    "x": Column("occ", lambda r: str(r["occurrences"]), right=True),
    "kind": Column("kind", lambda r: r["kind"] or "-", min_width=5, comfortable=8),
    "flops": Column(
        "flops", lambda r: "-" if r["flops"] is None else format_count(r["flops"]), right=True
    ),
    "bytes": Column(
        "hbm", lambda r: "-" if r["hbm_bytes"] is None else format_bytes(r["hbm_bytes"]), right=True
    ),
    "bound": Column("bound", _bound),
    "source": Column(
        "source",
        lambda r: short_source(r["source"]),
        min_width=16,
        shorten=shorten_source,
        comfortable=24,
    ),
}
_ESSENTIAL = ("kernel", "time", "share", "kind")
_OPTIONAL = ("bound", "source", "x", "flops", "bytes")


def _key_column(label: str, header: str) -> Column:
    """The first column of a group or delta table: a source line (shortened keeping its line
    number) or a name (shortened in the middle)."""
    if label == "source":
        return Column(
            header,
            lambda r: short_source(r[label]),
            min_width=16,
            comfortable=30,
            shorten=shorten_source,
        )
    return Column(header, lambda r: r[label], min_width=16, comfortable=30)


def _group_columns(label: str, header: str) -> dict[str, Column]:
    key = _key_column(label, header)
    return {
        "key": key,
        "time": Column("time/step", lambda r: format_seconds(r["time_s"]), right=True),
        "share": Column("share", lambda r: _percent(r["share"]), right=True),
        "n": Column("kernels", lambda r: str(len(r["kernels"])), right=True),
        "x": Column("occ", lambda r: str(r["occurrences"]), right=True),
    }


def _rows(profile: OpProfile) -> list[dict[str, Any]]:
    return [{**k.row(), "fraction": k.fraction} for k in profile.kernels]


def _chip_words(profile: OpProfile) -> str:
    """`` (tpu-v5e)``; for a TPU module in a trace that names no chip, the --device to give."""
    if profile.chip:
        return f" ({profile.chip})"
    if profile.needs_device:
        return f" (no chip named: bounds need --device {profile.needs_device})"
    return ""


def _head(profile: OpProfile, console: Any) -> None:
    from rich.text import Text

    joined = ", joined to TARGET" if profile.target else ", no TARGET joined"
    lines = [
        ("trace    ", f"{profile.trace} ({profile.format})"),
        ("device   ", profile.device + _chip_words(profile)),
        ("module   ", (profile.module or "(not named by the trace)") + joined),
        ("steps    ", f"{profile.steps} ({profile.step_rule})"),
    ]
    room = max(console.width - len(lines[0][0]), 20)
    for label, value in lines:
        console.print(Text.assemble((label, "dim"), shorten_middle(printable(value), room)))
    console.print(
        Text.assemble(
            ("time     ", "dim"),
            (format_seconds(profile.device_time_s), "bold"),
            f" of device time per step in {len(profile.kernels)} kernels",
        )
    )
    if profile.devices is not None:
        console.print(Text(printable(devices_line(profile.devices))))
    _step_lines(profile, console)


#: Steps listed one by one in the text (the JSON has them all).
SHOWN_STEPS = 8

_STEP_COLUMNS: dict[str, Column] = {
    "step": Column("step", lambda r: r["step"], right=True),
    "wall": Column("wall", lambda r: format_seconds(r["wall_s"]), right=True),
    "busy": Column("device busy", lambda r: format_seconds(r["busy_s"]), right=True),
    "idle": Column("idle", lambda r: _percent(r["idle_share"]), right=True),
}


def _step_lines(profile: OpProfile, console: Any) -> None:
    """Step wall time against device busy time, before any kernel: per step, and the host
    question when the chip is idle most of each step."""
    from rich.text import Text

    times = profile.step_times
    if not times:
        return
    wall = sum(t.wall_s for t in times) / len(times)
    busy = sum(t.busy_s for t in times) / len(times)
    idle = max(0.0, 1 - busy / wall) if wall > 0 else 0.0
    console.print(
        Text.assemble(
            ("per step ", "dim"),
            f"wall {format_seconds(wall)}, device busy {format_seconds(busy)}, idle ",
            (_percent(idle), "bold"),
        )
    )
    rows = [t.row() for t in times[:SHOWN_STEPS]]
    table, _ = fitted_table(rows, _STEP_COLUMNS, tuple(_STEP_COLUMNS), (), console.width, False)
    print_table(console, table, 0)
    if len(times) > SHOWN_STEPS:
        console.print(Text(f"({SHOWN_STEPS} of {len(times)} steps shown)", style="dim"))
    note = profile.host_note
    if note:
        console.print(Text(printable(note), style="bold yellow"))


def _seconds_range(low: float, high: float) -> str:
    """``12.10-12.61 ms``: two times in the unit of the larger, to a hundredth of it, so a
    spread of a few percent shows."""
    scale, unit = next(((s, u) for s, u in TIME_UNITS if high >= s), TIME_UNITS[-1])
    return f"{low / scale:.2f}-{high / scale:.2f} {unit}"


def devices_line(spread: DeviceSpread) -> str:
    """``8 devices: busy per step 12.10-12.61 ms, /device:TPU:3 slowest (+4.2% over the
    fastest); /device:TPU:0 shown (--trace-device N for another)``."""
    fastest, slowest = spread.fastest, spread.slowest
    busy = "busy per step" if spread.per_step else "busy"
    times = _seconds_range(fastest.time_ns * 1e-9, slowest.time_ns * 1e-9)
    return (
        f"{len(spread.devices)} devices: {busy} {times}, {slowest.name} slowest "
        f"(+{spread.over_fastest:.1%} over the fastest); {spread.shown.name} shown "
        "(--trace-device N for another)"
    )


def _notes(notes: Sequence[str], console: Any) -> None:
    from rich.text import Text

    for note in notes:
        console.print(Text("note: " + printable(note), style="dim"))


def _group_table(
    rows: Sequence[Mapping[str, Any]], label: str, header: str, console: Any, wide: bool
) -> None:
    columns = _group_columns(label, header)
    table, needed = fitted_table(
        rows, columns, ("key", "time", "share"), ("n", "x"), console.width, wide
    )
    console.print()
    print_table(console, table, needed if wide else 0)


def render_profile(
    profile: OpProfile, console: Any, *, wide: bool = False, top: int | None = None
) -> None:
    """The op profile: the head (with each step's wall and busy time), the kernels (the first
    ``top``), the groups, the async pairs, the notes."""
    from rich.text import Text

    _head(profile, console)
    rows = _rows(profile)
    shown = rows if top is None else rows[:top]
    table, needed = fitted_table(shown, KERNEL_COLUMNS, _ESSENTIAL, _OPTIONAL, console.width, wide)
    console.print()
    print_table(console, table, needed if wide else 0)
    if len(shown) < len(rows):
        console.print(Text(f"({len(shown)} of {len(rows)} kernels shown)", style="dim"))
    limit = top if top is not None else None
    for groups, label, header in (
        (profile.by_kind, "kind", "by kind"),
        (profile.by_source, "source", "by source line"),
        (profile.by_scope, "scope", "by op_name scope"),
    ):
        _group_table([g.row(label) for g in groups][:limit], label, header, console, wide)
    _async_table(profile, console, wide, top)
    console.print()
    # The host-bound note was said under the steps already.
    _notes([n for n in profile.notes if n != profile.host_note], console)


#: Async pairs listed in the text without --top (the JSON has them all).
SHOWN_ASYNC = 10


def async_line(profile: OpProfile) -> str:
    """``async transfers: 380 pairs, in flight 18.2 ms per step, 1.20 ms of it exposed...``:
    over all pairs, the time at least one was in flight and the part no other op hid."""
    return (
        f"async transfers: {len(profile.overlaps)} pairs, in flight "
        f"{format_seconds(profile.async_in_flight_s)} per step, "
        f"{format_seconds(profile.async_exposed_s)} of it exposed (the device ran no other "
        "op); no roofline"
    )


def _async_table(profile: OpProfile, console: Any, wide: bool, top: int | None) -> None:
    """The async pairs, most exposed first: each one's span from start to done per step, how
    much of it other ops hid and how much was exposed (their transfer has no roofline)."""
    from rich.text import Text

    overlaps = profile.overlaps
    if not overlaps:
        return
    limit = top if top is not None else SHOWN_ASYNC
    rows = [o.row() for o in overlaps[:limit]]
    console.print()
    console.print(Text(printable(async_line(profile)), style="bold"))
    print_async_table(console, rows, len(overlaps), ("share", "bytes", "op", "n"), wide, _percent)


def _delta_columns(label: str, header: str) -> dict[str, Column]:
    def ratio(row: Mapping[str, Any]) -> str:
        return "-" if row["ratio"] is None else f"{row['ratio']:.2f}x"

    def delta(row: Mapping[str, Any]) -> str:
        text = format_seconds(row["delta_s"])
        return text if row["delta_s"] < 0 else "+" + text

    return {
        "key": _key_column(label, header),
        "a": Column("A/step", lambda r: format_seconds(r["a_s"]), right=True),
        "b": Column("B/step", lambda r: format_seconds(r["b_s"]), right=True),
        "delta": Column("B-A", delta, right=True),
        "ratio": Column("B/A", ratio, right=True),
    }


def render_profile_comparison(
    comparison: ProfileComparison, console: Any, *, wide: bool = False, top: int | None = None
) -> None:
    """A's and B's device time per step, then per kernel and per source line."""
    from rich.text import Text

    for label, profile in (("A", comparison.a), ("B", comparison.b)):
        console.print(
            Text.assemble(
                (f"{label}  ", "bold"),
                (format_seconds(profile.device_time_s), "bold"),
                printable(
                    f" per step ({profile.steps} steps, {len(profile.kernels)} kernels) "
                    f"{profile.module} in {profile.trace}"
                ),
            )
        )
    ratio = comparison.ratio
    if ratio is not None:
        console.print(Text(f"B/A {ratio:.3f}x device time per step", style="bold"))
    for deltas, label, header in (
        (comparison.kernels, "name", "kernel"),
        (comparison.by_source, "source", "source line"),
    ):
        rows = [d.row(label) for d in deltas][:top]
        table, needed = fitted_table(
            rows,
            _delta_columns(label, header),
            ("key", "a", "b", "delta"),
            ("ratio",),
            console.width,
            wide,
        )
        console.print()
        print_table(console, table, needed if wide else 0)


def profile_csv_rows(profile: OpProfile) -> tuple[list[dict[str, Any]], list[str]]:
    """The kernel rows a CSV prints, and its columns: the ``--json`` kernel keys, then the
    roofline ``fraction``."""
    from ..analysis.op_profile.table import KERNEL_KEYS

    return _rows(profile), [*KERNEL_KEYS, "fraction"]

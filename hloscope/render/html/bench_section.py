"""The report's bench section: the program and each of its kernels timed (``--bench``),
with the roofline chart, from :mod:`hloscope.bench`'s result as data."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from .escape import clean_svg

__all__ = [
    "BenchKernelRow",
    "BenchSkip",
    "BenchSection",
    "bench_section",
]


@dataclass(slots=True)
class BenchKernelRow:
    """One kernel timed: its time per run (as shown, and in seconds), its share of the
    kernels' time, its achieved rates, what bounds it and how close to that roof, its source
    line."""

    name: str
    median: str
    median_s: float | None
    share: float | None
    bound: str
    source: str
    flops_rate: str = "-"
    bytes_rate: str = "-"
    roof: str = "-"


@dataclass(slots=True)
class BenchSkip:
    """A kernel that was not timed alone, and why."""

    name: str
    reason: str


@dataclass(slots=True)
class BenchSection:
    """The bench section: the program's numbers as ``(label, value)`` rows, the kernels
    slowest first, the kernels that could not be timed alone, and the notes."""

    program: list[tuple[str, str]]
    kernels: list[BenchKernelRow]
    skipped: list[BenchSkip]
    notes: list[str] = field(default_factory=list)
    chart: Markup | None = None  # the roofline chart, a checked <svg> element
    timed: str = ""  # "in program" or "alone"


def bench_section(
    data: Mapping[str, Any], kernel_rows: Sequence[Mapping[str, Any]], notes: Sequence[str]
) -> BenchSection:
    """:class:`BenchSection` from a bench result's JSON (``BenchResult.to_dict()``), its
    kernel rows (``BenchResult.kernel_rows()``, slowest first) and its notes."""
    from ..bench_text import format_rate, format_seconds  # rich: only for a page with bench

    program = _program_rows(data)
    per_kernel = data.get("per_kernel") or {}
    kernels = [
        BenchKernelRow(
            name=row["name"],
            median=_time_text(row, format_seconds),
            median_s=row.get("time_s"),
            share=row.get("share"),
            bound=row.get("bound") or "",
            source=row.get("source") or "",
            flops_rate=format_rate(row.get("flops_per_s"), "FLOP/s"),
            bytes_rate=format_rate(row.get("bytes_per_s"), "B/s"),
            roof=_percent(row.get("roofline_fraction")),
        )
        for row in kernel_rows
    ]
    skipped = [BenchSkip(s["name"], s["reason"]) for s in data["skipped"]]
    return BenchSection(
        program,
        kernels,
        skipped,
        list(notes),
        chart=_roofline_chart(data, kernel_rows),
        timed=str(per_kernel.get("timed") or ""),
    )


def _program_rows(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The program's figures, each a (label, value) row: its times, rates, roofs, and with a
    per-kernel run the kernels' time and the gap."""
    from ..bench_text import format_rate, format_seconds

    roof = data["roofline"]
    program = [
        ("device", data["device"]),
        ("median time per run", format_seconds(data["median_s"])),
        (
            "10th to 90th percentile",
            f"{format_seconds(data['p10_s'])} to {format_seconds(data['p90_s'])}",
        ),
        ("timed runs", f"{data['runs']:,}"),
        ("FLOP rate", format_rate(data["flops_per_s"], "FLOP/s")),
        ("memory rate", format_rate(data["bytes_per_s"], "B/s")),
        ("peak FLOP rate", format_rate(roof["peak_flops_per_s"], "FLOP/s")),
        ("peak memory rate", format_rate(roof["peak_bytes_per_s"], "B/s")),
        ("bound by", roof["bound"] or "-"),
        ("position under the roof", _percent(roof.get("fraction"))),
    ]
    per_kernel = data.get("per_kernel") or {}
    if per_kernel.get("timed") == "in program" and per_kernel.get("device_time_s") is not None:
        program += [
            ("kernels' time per step", format_seconds(per_kernel["device_time_s"])),
            ("gap (host, launch, idle)", format_seconds(per_kernel["gap_s"])),
        ]
    return program


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _time_text(row: Mapping[str, Any], format_seconds: Callable[[float | None], str]) -> str:
    """A kernel's time per run, or ``< bound`` below resolution (never ``0 s``)."""
    if row.get("time_s") is None and row.get("below_s") is not None:
        return "< " + format_seconds(row["below_s"] * (row.get("executions") or 1))
    return format_seconds(row.get("time_s"))


def _roofline_chart(data: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> Markup | None:
    from ..roofline_svg import bench_roofline_svg

    svg = bench_roofline_svg(data, rows)
    return Markup(clean_svg(svg, "hsr-")) if svg is not None else None  # checked: drawing only

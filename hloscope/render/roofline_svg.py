"""``hloscope bench -o roofline.svg``: kernels as points under the device's two roofs.

The chart XProf draws: log-log axes, arithmetic intensity (FLOPs per byte) across, achieved
FLOP/s up. The memory roof is the line ``FLOP/s = intensity x bandwidth`` (slope one on log-log
axes) up to the ridge point ``peak FLOP/s / bandwidth``, the compute roof the flat line at the
peak from there on. Each kernel is a circle at (its FLOPs / its bytes, its FLOPs / its time),
its area proportional to its share of the time; the program, when given, a square. A kernel
with no FLOPs or no bytes has no place on log axes: it is counted under the chart, not drawn.

Hand-written SVG (no plotting library), like :mod:`.memory_svg`: every name that reaches the
picture is XML-escaped (kernel and module names are free text), and nothing is fetched.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from ..units import format_count

__all__ = [
    "RoofPoint",
    "RooflineAxes",
    "render_roofline_svg",
    "axes_for",
    "bench_points",
    "bench_roofline_svg",
]

_WIDTH, _HEIGHT = 720, 420
_LEFT, _RIGHT, _TOP, _BOTTOM = 80, 24, 44, 64
_MIN_RADIUS, _MAX_RADIUS = 3.0, 16.0


@dataclass(frozen=True, slots=True)
class RoofPoint:
    """One kernel (or the program) to place: FLOPs and bytes done in ``seconds``."""

    name: str
    flops: float
    bytes: float
    seconds: float
    share: float = 0.0
    program: bool = False

    @property
    def intensity(self) -> float | None:
        return self.flops / self.bytes if self.bytes > 0 and self.flops > 0 else None

    @property
    def flops_per_s(self) -> float | None:
        return self.flops / self.seconds if self.seconds > 0 and self.flops > 0 else None


@dataclass(frozen=True, slots=True)
class RooflineAxes:
    """Where a value lands in the picture: decades from ``x_min``/``y_min`` to the maxima."""

    x_min: float
    x_max: float
    y_min: float
    y_max: float

    def x(self, intensity: float) -> float:
        span = math.log10(self.x_max) - math.log10(self.x_min)
        plot = _WIDTH - _LEFT - _RIGHT
        return _LEFT + plot * (math.log10(intensity) - math.log10(self.x_min)) / span

    def y(self, rate: float) -> float:
        span = math.log10(self.y_max) - math.log10(self.y_min)
        plot = _HEIGHT - _TOP - _BOTTOM
        return _TOP + plot * (1 - (math.log10(rate) - math.log10(self.y_min)) / span)


def _decade_below(value: float) -> float:
    return 10.0 ** math.floor(math.log10(value))


def _decade_above(value: float) -> float:
    return 10.0 ** math.ceil(math.log10(value))


def axes_for(points: Sequence[RoofPoint], peak_flops: float, peak_bytes: float) -> RooflineAxes:
    """Axes wide enough for the roofs (two decades either side of the ridge) and every point."""
    ridge = peak_flops / peak_bytes
    xs = [ridge / 100, ridge * 100] + [p.intensity for p in points if p.intensity]
    ys = [peak_flops * 2] + [r for p in points if (r := p.flops_per_s)]
    low_y = min([*ys, peak_flops / 1e4])
    return RooflineAxes(
        _decade_below(min(xs)), _decade_above(max(xs)), _decade_below(low_y), _decade_above(max(ys))
    )


def _radius(share: float) -> float:
    """A circle's radius, its area proportional to the share of the time."""
    return _MIN_RADIUS + (_MAX_RADIUS - _MIN_RADIUS) * math.sqrt(max(0.0, min(1.0, share)))


def _rate(value: float, unit: str) -> str:
    return f"{format_count(value)} {unit}"


def _ticks(low: float, high: float) -> list[float]:
    out, value = [], low
    while value <= high * 1.0001:
        out.append(value)
        value *= 10
    return out


def _frame(axes: RooflineAxes) -> list[str]:
    bottom, right = _HEIGHT - _BOTTOM, _WIDTH - _RIGHT
    parts = [
        f'<line x1="{_LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="black"/>',
        f'<line x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{bottom}" stroke="black"/>',
    ]
    for tick in _ticks(axes.x_min, axes.x_max):
        x = axes.x(tick)
        parts.append(
            f'<line x1="{x:.1f}" y1="{bottom}" x2="{x:.1f}" y2="{bottom + 4}" stroke="black"/>'
            f'<text x="{x:.1f}" y="{bottom + 16}" text-anchor="middle">{tick:g}</text>'
        )
    for tick in _ticks(axes.y_min, axes.y_max):
        y = axes.y(tick)
        parts.append(
            f'<line x1="{_LEFT - 4}" y1="{y:.1f}" x2="{_LEFT}" y2="{y:.1f}" stroke="black"/>'
            f'<text x="{_LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{escape(format_count(tick))}</text>"
        )
    parts += [
        f'<text x="{(_LEFT + right) / 2:.0f}" y="{_HEIGHT - 26}" text-anchor="middle">'
        "arithmetic intensity (FLOP per byte)</text>",
        f'<text x="16" y="{(_TOP + bottom) / 2:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {(_TOP + bottom) / 2:.0f})">achieved FLOP/s</text>',
    ]
    return parts


def _roofs(axes: RooflineAxes, peak_flops: float, peak_bytes: float) -> list[str]:
    ridge = peak_flops / peak_bytes
    start = max(axes.x_min, axes.y_min / peak_bytes)
    x0, y0 = axes.x(start), axes.y(start * peak_bytes)
    xr, yr = axes.x(ridge), axes.y(peak_flops)
    x1 = axes.x(axes.x_max)
    memory = escape(f"memory roof {_rate(peak_bytes, 'B/s')}")
    compute = escape(f"compute roof {_rate(peak_flops, 'FLOP/s')}")
    return [
        f'<line class="memory-roof" x1="{x0:.2f}" y1="{y0:.2f}" x2="{xr:.2f}" y2="{yr:.2f}" '
        'stroke="#1f77b4" stroke-width="2"/>',
        f'<line class="compute-roof" x1="{xr:.2f}" y1="{yr:.2f}" x2="{x1:.2f}" y2="{yr:.2f}" '
        'stroke="#d62728" stroke-width="2"/>',
        f'<line class="ridge-line" x1="{xr:.2f}" y1="{yr:.2f}" x2="{xr:.2f}" '
        f'y2="{_HEIGHT - _BOTTOM}" stroke="#999" stroke-dasharray="3,3"/>',
        f'<circle class="ridge" cx="{xr:.2f}" cy="{yr:.2f}" r="3" fill="black"/>',
        f'<text x="{xr + 6:.1f}" y="{yr + 14:.1f}">{escape(f"ridge {ridge:.3g} FLOP/B")}</text>',
        f'<text x="{x1 - 4:.1f}" y="{yr - 6:.1f}" text-anchor="end" fill="#d62728">'
        f"{compute}</text>",
        f'<text x="{xr - 6:.1f}" y="{yr - 6:.1f}" text-anchor="end" fill="#1f77b4">{memory}</text>',
    ]


def _point(axes: RooflineAxes, point: RoofPoint, intensity: float, rate: float) -> str:
    x, y = axes.x(intensity), axes.y(rate)
    tip = escape(
        f"{point.name}: {intensity:.3g} FLOP/B, {_rate(rate, 'FLOP/s')}, "
        f"{point.share:.1%} of the time"
    )
    name = quoteattr(point.name)
    if point.program:
        size = 9.0
        return (
            f'<rect class="program" data-name={name} x="{x - size / 2:.2f}" '
            f'y="{y - size / 2:.2f}" width="{size}" height="{size}" fill="none" '
            f'stroke="black" stroke-width="2"><title>{tip}</title></rect>'
        )
    return (
        f'<circle class="kernel" data-name={name} cx="{x:.2f}" cy="{y:.2f}" '
        f'r="{_radius(point.share):.2f}" fill="#ff7f0e" fill-opacity="0.55" stroke="#a0522d">'
        f"<title>{tip}</title></circle>"
    )


def render_roofline_svg(
    points: Sequence[RoofPoint], peak_flops: float, peak_bytes: float, title: str
) -> str:
    """The roofline chart of ``points`` under roofs of ``peak_flops`` FLOP/s and
    ``peak_bytes`` bytes/s, as SVG text (see the module docstring)."""
    axes = axes_for(points, peak_flops, peak_bytes)
    heading = escape(title)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH} {_HEIGHT}" font-family="sans-serif" font-size="11">',
        f"<title>{heading}</title>",
        f'<rect width="{_WIDTH}" height="{_HEIGHT}" fill="white"/>',
        f'<text x="{_LEFT}" y="20" font-size="13">{heading}</text>',
        *_frame(axes),
        *_roofs(axes, peak_flops, peak_bytes),
    ]
    left_out = 0
    # The biggest circles first, so that small ones stay visible on top of them.
    for point in sorted(points, key=lambda p: (p.program, -p.share)):
        intensity, rate = point.intensity, point.flops_per_s
        if intensity is None or rate is None:
            left_out += not point.program
            continue
        parts.append(_point(axes, point, intensity, rate))
    if left_out:
        parts.append(
            f'<text class="left-out" x="{_LEFT}" y="{_HEIGHT - 8}" fill="#666">'
            f"{left_out} kernel(s) with no FLOPs, no bytes or no time are not drawn "
            "(no place on log axes)</text>"
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def bench_points(data: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> list[RoofPoint]:
    """The points of a bench result: its JSON (``BenchResult.to_dict()``) and kernel rows
    (``BenchResult.kernel_rows()``): each kernel's FLOPs and bytes per run over its time per
    run, and the program's rates over its median. An async op (a ``copy-start``'s issue, a
    ``slice-done``'s wait) is no point: its bytes over its event's time are not a rate."""
    points = [
        RoofPoint(
            str(row["name"]),
            float(row.get("flops") or 0) * float(row.get("executions") or 1),
            float(row.get("bytes") or 0) * float(row.get("executions") or 1),
            float(row.get("time_s") or 0.0),
            float(row.get("share") or 0.0),
        )
        for row in rows
        if not row.get("async")
    ]
    median = data.get("median_s") or 0.0
    if median > 0:
        points.append(
            RoofPoint(
                f"program {data.get('module', '')}",
                float(data.get("flops_per_s") or 0.0) * median,
                float(data.get("bytes_per_s") or 0.0) * median,
                median,
                1.0,
                program=True,
            )
        )
    return points


def bench_roofline_svg(data: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> str | None:
    """The chart of a bench result (see :func:`bench_points`), ``None`` without peaks."""
    roof = data.get("roofline") or {}
    peak_flops, peak_bytes = roof.get("peak_flops_per_s"), roof.get("peak_bytes_per_s")
    if not peak_flops or not peak_bytes:
        return None
    title = f"{data.get('module', '')} on {data.get('device', '')}: roofline"
    return render_roofline_svg(bench_points(data, rows), peak_flops, peak_bytes, title)

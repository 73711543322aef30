"""``hloscope memory`` for a person: the peak, its breakdown, a sparkline, what is live."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..units import format_bytes

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.memory import MemoryResult

__all__ = ["render_memory", "render_device", "sparkline"]

_BARS = "▁▂▃▄▅▆▇█"
#: Buffers and groups listed before "... N more".
TOP = 10


def sparkline(timeline: list[tuple[int, int]], peak_index: int, width: int = 60) -> str:
    """Live bytes over the schedule in ``width`` characters, ``^`` under the peak's column."""
    if not timeline:
        return ""
    end = timeline[-1][0] + 1
    values = [0] * end
    for (t, b), nxt in zip(timeline, [*timeline[1:], (end, 0)]):
        for k in range(t, nxt[0]):
            values[k] = b
    cols = min(width, end)
    buckets = [
        max(values[c * end // cols : max((c + 1) * end // cols, c * end // cols + 1)])
        for c in range(cols)
    ]
    top = max(buckets) or 1
    line = "".join(_BARS[min(len(_BARS) - 1, b * len(_BARS) // (top + 1))] for b in buckets)
    mark = min(cols - 1, peak_index * cols // end)
    return line + "\n" + " " * mark + "^ peak"


def render_memory(result: MemoryResult) -> str:
    lines = [f"module {result.module}   source: {result.source}"]
    lines += [f"  {note}" for note in result.notes]
    at = result.peak_at
    kernel = f", kernel {at['kernel']}" if at.get("kernel") else ""
    lines.append(
        f"peak {format_bytes(result.peak_bytes)} ({result.peak_bytes} bytes) at schedule index "
        f"{at['index']} ({at['instruction']}{kernel})"
    )
    lines.append("  " + ", ".join(f"{k} {format_bytes(v)}" for k, v in result.breakdown.items()))
    if result.device is not None:
        lines += render_device(result.device)
    lines += ["", sparkline(result.timeline, at["index"]), "", "live at the peak:"]
    for b in result.live_at_peak[:TOP]:
        where = f"  {b.source}" if b.source else ""
        lines.append(f"  {format_bytes(b.bytes):>10}  {b.kind:<9} {b.name} {b.shape}{where}")
    if len(result.live_at_peak) > TOP:
        lines.append(f"  ... {len(result.live_at_peak) - TOP} more")
    for title, rows, key in (
        ("by source line:", result.by_source(), "source"),
        ("by scope:", result.by_scope(), "scope"),
    ):
        lines.append(title)
        for row in rows[:TOP]:
            lines.append(f"  {format_bytes(row['bytes']):>10}  {row[key]} ({row['buffers']})")
    if result.savings:
        lines.append("what would free memory:")
        for s in result.savings[:TOP]:
            lines.append(f"  {format_bytes(s.bytes):>10}  {s.kind}: {s.target}: {s.fix}")
    return "\n".join(lines) + "\n"


def render_device(device: dict[str, Any]) -> list[str]:
    """The verdict of ``--device``: one line, then on a TPU the padded peak and the arrays
    padding inflates (``device`` is the ``device`` object of ``--json``)."""
    memory = device["memory_bytes"]
    peak = device["peak_bytes"]
    padded = "padded_peak_bytes" in device
    verdict = "fits" if device["fits"] else "does NOT fit"
    headroom = device["headroom_bytes"]
    room = (
        f"headroom {format_bytes(headroom)} under"
        if headroom >= 0
        else f"{format_bytes(-headroom)} over"
    )
    lines = [
        f"{verdict} on {device['name']} ({format_bytes(memory)}): "
        f"{'padded peak' if padded else 'peak'} {format_bytes(peak)} = "
        f"{peak / memory:.0%} of memory, {room} the {device['limit'] * 100:g}% limit"
    ]
    if padded:
        logical = device["logical_peak_bytes"]
        lines.append(
            f"  TPU tiles: logical peak {format_bytes(logical)}, padded "
            f"{format_bytes(peak)} (+{format_bytes(peak - logical)} of padding)"
        )
        inflated = device["inflated"]
        if inflated:
            lines.append(f"  padding grows {len(inflated)} array(s) live at the peak by over 25%:")
        for a in inflated[:TOP]:
            lines.append(
                f"  {format_bytes(a['padded_bytes']):>10}  {a['name']} {a['shape']}: "
                f"{format_bytes(a['logical_bytes'])} of data, "
                f"{a['padded_bytes'] / max(a['logical_bytes'], 1):.1f}x"
            )
        if len(inflated) > TOP:
            lines.append(f"  ... {len(inflated) - TOP} more")
    return lines

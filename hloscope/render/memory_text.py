"""``hloscope memory`` for a person: the peak, its breakdown, a sparkline, what is live."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..units import format_bytes

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.memory import MemoryResult

__all__ = ["render_memory", "sparkline"]

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

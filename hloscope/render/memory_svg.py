"""``hloscope memory -o memory.svg``: live bytes over the schedule as a small SVG picture.

A step line of the live bytes at each schedule index, the peak marked with a dot and a label,
axes labelled with the index and the bytes. Hand-written SVG (no plotting library): every
name that reaches the picture is XML-escaped, since instruction and module names are free text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

from ..units import format_bytes

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.memory import MemoryResult

__all__ = ["render_memory_svg"]

_WIDTH, _HEIGHT = 720, 260
_LEFT, _RIGHT, _TOP, _BOTTOM = 70, 20, 40, 40


def _points(result: MemoryResult, top: int) -> list[tuple[float, float]]:
    """The step line's corners in picture coordinates."""
    timeline = result.timeline
    end = max(timeline[-1][0], 1)
    plot_w = _WIDTH - _LEFT - _RIGHT
    plot_h = _HEIGHT - _TOP - _BOTTOM

    def x(t: int) -> float:
        return _LEFT + plot_w * t / end

    def y(b: int) -> float:
        return _TOP + plot_h * (1 - b / top)

    out: list[tuple[float, float]] = []
    for (t, b), nxt in zip(timeline, [*timeline[1:], None]):
        out.append((x(t), y(b)))
        if nxt is not None:
            out.append((x(nxt[0]), y(b)))
    return out


def render_memory_svg(result: MemoryResult) -> str:
    """The timeline picture of ``result`` as SVG text."""
    top = max([b for _, b in result.timeline] + [result.peak_bytes, 1])
    at = result.peak_at
    title = escape(f"{result.module}: live bytes over the schedule (source: {result.source})")
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH} {_HEIGHT}" font-family="sans-serif" font-size="11">',
        f"<title>{title}</title>",
        f'<rect width="{_WIDTH}" height="{_HEIGHT}" fill="white"/>',
        f'<text x="{_LEFT}" y="18" font-size="13">{title}</text>',
        f'<line x1="{_LEFT}" y1="{_HEIGHT - _BOTTOM}" x2="{_WIDTH - _RIGHT}" '
        f'y2="{_HEIGHT - _BOTTOM}" stroke="black"/>',
        f'<line x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{_HEIGHT - _BOTTOM}" stroke="black"/>',
        f'<text x="{_LEFT - 4}" y="{_TOP + 4}" text-anchor="end">'
        f"{escape(format_bytes(top))}</text>",
        f'<text x="{_LEFT - 4}" y="{_HEIGHT - _BOTTOM}" text-anchor="end">0</text>',
        f'<text x="{(_LEFT + _WIDTH - _RIGHT) // 2}" y="{_HEIGHT - 10}" text-anchor="middle">'
        "schedule index</text>",
    ]
    if result.timeline:
        end = result.timeline[-1][0]
        parts.append(
            f'<text x="{_WIDTH - _RIGHT}" y="{_HEIGHT - _BOTTOM + 14}" text-anchor="end">'
            f"{end}</text>"
        )
        line = " ".join(f"{px:.1f},{py:.1f}" for px, py in _points(result, top))
        parts.append(f'<polyline points="{line}" fill="none" stroke="#1f77b4" stroke-width="1.5"/>')
        plot_w = _WIDTH - _LEFT - _RIGHT
        px = _LEFT + plot_w * (at.get("index") or 0) / max(end, 1)
        py = _TOP + (_HEIGHT - _TOP - _BOTTOM) * (1 - result.peak_bytes / top)
        label = escape(
            f"peak {format_bytes(result.peak_bytes)} at {at.get('index')} "
            f"({at.get('instruction') or '?'})"
        )
        anchor = "end" if px > _WIDTH / 2 else "start"
        dx = -6 if anchor == "end" else 6
        parts += [
            f'<line x1="{px:.1f}" y1="{_TOP}" x2="{px:.1f}" y2="{_HEIGHT - _BOTTOM}" '
            'stroke="#d62728" stroke-dasharray="3,3"/>',
            f'<circle class="peak" cx="{px:.1f}" cy="{py:.1f}" r="4" fill="#d62728"/>',
            f'<text x="{px + dx:.1f}" y="{py - 6:.1f}" text-anchor="{anchor}" '
            f'fill="#d62728">{label}</text>',
        ]
    parts.append("</svg>")
    return "\n".join(parts) + "\n"

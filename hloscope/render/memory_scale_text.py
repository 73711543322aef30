"""``hloscope memory --scale`` for a person: the line through two compiles, its check, the
largest size that fits."""

from __future__ import annotations

from typing import Any

from ..units import format_bytes

__all__ = ["render_scale"]


def render_scale(scale: dict[str, Any], device: str) -> str:
    """The lines of ``--scale`` from its ``--json`` object (``device`` names the device)."""
    arg, dim = scale["argument"], scale["dim"]
    a, b = scale["intercept_bytes"], scale["bytes_per_size"]
    sizes = ", ".join(f"{p['size']}: {format_bytes(p['peak_bytes'])}" for p in scale["points"])
    check = scale["check"]
    lines = [
        f"scale: argument {arg}, dimension {dim} (compiled on {scale['backend']})",
        f"  peak at size {sizes}: peak = {format_bytes(a)} + {format_bytes(b)} per unit",
        f"  check at size {check['size']}: compiled {format_bytes(check['peak_bytes'])}, "
        f"predicted {format_bytes(check['predicted_bytes'])} ({check['error']:+.1%})",
    ]
    largest = scale["largest_size"]
    limit = format_bytes(scale["limit_bytes"])
    if largest is None:
        first = format_bytes(scale["points"][0]["peak_bytes"])
        lines.append(f"  the peak does not grow with the size: every size peaks near {first}")
    elif largest == 0:
        lines.append(f"  no size fits under the {limit} limit of {device}")
    else:
        lines.append(
            f"  largest size under the {limit} limit of {device}: {largest} "
            f"(predicted peak {format_bytes(scale['largest_size_peak_bytes'])})"
        )
    return "\n".join(lines) + "\n"

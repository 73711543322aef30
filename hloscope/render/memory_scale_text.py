"""``hloscope memory --scale`` for a person: the line through two compiles, its check, the
largest size that fits."""

from __future__ import annotations

import textwrap
from typing import Any

from ..units import format_bytes

__all__ = ["render_scale"]


def render_scale(scale: dict[str, Any], device: str) -> str:
    """The lines of ``--scale`` from its ``--json`` object (``device`` names the device)."""
    arg, dim = scale["argument"], scale["dim"]
    a, b = scale["intercept_bytes"], scale["bytes_per_size"]
    sizes = ", ".join(f"{p['size']}: {_peak_words(p)}" for p in scale["points"])
    check = scale["check"]
    lines = [
        f"scale: argument {arg}, dimension {dim}",
        f"  {_compiled_words(scale)}",
        f"  peak at size {sizes}: peak = {format_bytes(a)} + {format_bytes(b)} per unit",
        f"  check at size {check['size']}: {_measured(check)}, "
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
    # 80 columns, as the rest of memory's text when piped: a long note wraps under its line.
    wrapped = (
        textwrap.fill(
            line, 80, subsequent_indent="    ", break_on_hyphens=False, break_long_words=False
        )
        for line in lines
    )
    return "\n".join(wrapped) + "\n"


def _compiled_words(scale: dict[str, Any]) -> str:
    """What compiled each size: the device kind and the compiler, or the estimate's note."""
    if scale.get("estimate_note"):
        return f"each size {scale['estimate_note']}"
    by = scale.get("compiled_by") or scale["backend"]
    return f"each size compiled for {scale.get('compiled_for')} by {by}"


def _peak_words(point: dict[str, Any]) -> str:
    """A size's peak; for a program the compiler refused, what it said it needs."""
    peak = format_bytes(point["peak_bytes"])
    return f"needs {peak} (does not compile)" if point.get("does_not_compile") else peak


def _measured(point: dict[str, Any]) -> str:
    if point.get("does_not_compile"):
        return f"does not compile, needs {format_bytes(point['peak_bytes'])}"
    return f"compiled {format_bytes(point['peak_bytes'])}"

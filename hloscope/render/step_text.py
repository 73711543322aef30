"""The step estimate in words: ``step on tpu-v5e: 1.2 ms``, compute 71%, exposed communication 29%.

:func:`render_step` words a step estimate (its JSON form,
:meth:`~hloscope.analysis.step_estimate.StepEstimate.to_dict`) in lines of at most 80
characters, for ``hloscope collectives --device`` and ``hloscope fusions --device``. The split
is rounded to whole percents, but a part that is not zero never shows as ``0%`` (``<1%``):
"exposed communication 0%" would say there is none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .collectives_text import format_seconds
from .terminal import printable, shorten_middle

__all__ = ["format_share", "render_step"]

WIDTH = 80


def format_share(fraction: float) -> str:
    """0.714 -> '71%'; 0.003 -> '<1%'; 0.0 -> '0%'."""
    if 0 < fraction < 0.005:
        return "<1%"
    return f"{fraction:.0%}"


def render_step(step: Mapping[str, Any], devices: int) -> str:
    """The step's lines, each ending in a newline: the total, then compute and exposed
    communication with their shares of it, then the communication hidden under compute."""
    split = step["split"]
    per = f"each of {devices} devices" if devices > 1 else "one device"
    communication = format_seconds(step["communication_s"])
    hidden = (
        f"{format_seconds(step['hidden_s'])} of {communication}, under compute"
        if step["hidden_s"] > 0
        else f"none of {communication}"
    )
    rows = [
        (
            "compute",
            format_share(split["compute"]),
            format_seconds(step["compute_s"]),
            f"{step['kernels']} kernels, {step['compute_peak']} roofline",
        ),
        (
            "exposed communication",
            format_share(split["exposed"]),
            format_seconds(step["exposed_s"]),
            "",
        ),
        ("hidden communication", "", "", hidden),
    ]
    total = format_seconds(step["total_s"])
    lines = [f"step on {step['device']} (one call, {per}): {total} estimated"]
    for name, share, seconds, note in rows:
        lines.append(f"  {name:<21}  {share:>4}  {seconds:>8}  {note}".rstrip())
    return "".join(shorten_middle(printable(line), WIDTH) + "\n" for line in lines)

"""What a fusion report's summary suggests looking at, in words, and the summary as JSON
prints it (its fields and those notes).

Which notes a module gets, and their counts, are decided here from the summary's numbers (the
ops left unfused, the flagged ops whose cost is unknown or estimated); the tables and the page
print the notes they are given (``hloscope fusions --json``'s ``summary.notes``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..units import format_bytes
from .cost import (
    PALLAS_ESTIMATE_HINT,
    estimated_pallas_kernels,
    estimated_xla_kernels,
    unestimated_pallas_kernels,
)
from .fusions import FusionSummary

__all__ = ["summary_notes", "summary_to_dict"]


def summary_notes(summary: FusionSummary | Mapping[str, Any]) -> list[str]:
    """What the summary suggests looking at, one sentence each (empty when nothing does).

    ``summary`` is a :class:`~hloscope.analysis.fusions.FusionSummary` or its
    :meth:`~hloscope.analysis.fusions.FusionSummary.to_dict`.
    """
    s = summary.to_dict() if isinstance(summary, FusionSummary) else summary
    notes: list[str] = []
    elementwise = s["unfused_elementwise"]
    if elementwise:
        notes.append(
            f"{len(elementwise)} elementwise op(s) left unfused: each reads its inputs from "
            f"memory and writes its result back "
            f"({format_bytes(s['unfused_elementwise_bytes'])} in all), a "
            "round trip between kernels that fusing would avoid"
        )
    flagged = s["flagged"]
    estimated = estimated_pallas_kernels(flagged)
    xla_kernels = estimated_xla_kernels(flagged)
    unknown = len(flagged) - estimated - xla_kernels
    if unknown:
        pallas = unestimated_pallas_kernels(flagged)
        notes.append(
            f"{unknown} op(s) with unknown cost (custom-calls or unknown opcodes): "
            "counted as their boundary bytes and 0 FLOPs"
            + (
                f"; {pallas} of them Pallas kernel(s) given no cost estimate: "
                f"{PALLAS_ESTIMATE_HINT}"
                if pallas
                else ""
            )
        )
    if estimated:
        notes.append(
            f"{estimated} Pallas kernel(s) given no cost estimate: their FLOPs are hloscope's "
            "estimate from each kernel's jaxpr times its grid (JAX's Pallas cost rules), which "
            f"XLA's own count leaves out; {PALLAS_ESTIMATE_HINT}"
        )
    if xla_kernels:
        notes.append(
            f"{xla_kernels} kernel(s) XLA:TPU wrote itself (a tpu_custom_call such as "
            "online-softmax, not a Pallas kernel of the program): their FLOPs are hloscope's "
            "estimate from each kernel's Mosaic body times its grid, which XLA's own count "
            "leaves out"
        )
    return notes


def summary_to_dict(summary: FusionSummary) -> dict[str, Any]:
    """The summary as ``hloscope fusions --json`` prints it: its fields, then ``notes``."""
    data = summary.to_dict()
    data["notes"] = summary_notes(data)
    return data

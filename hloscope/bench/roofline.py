"""Where a measured time sits under the device's roofline.

A kernel that does ``F`` FLOPs and moves ``B`` bytes in ``t`` seconds achieves ``F/t`` FLOP/s and
``B/t`` bytes/s. The roofline model says it can go no faster than
``max(F / peak_flops, B / peak_bandwidth)``: its arithmetic intensity ``F/B`` against the
device's *ridge point* ``peak_flops / peak_bandwidth`` says which limit binds. Left of the
ridge it is **memory**-bound (more FLOPs per byte would come for free), right of it
**compute**-bound. ``fraction`` is how close the measured time comes to that limit
(1.0: at the roof). FLOPs and bytes come from hloscope's cost model (XLA's rules; see
:mod:`hloscope.analysis.cost`); a kernel with neither (a pure layout change counted as no
bytes, say) is ``None``-bound.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .peaks import PeakChoice

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.fusions import FusionReport

__all__ = ["Bound", "Roofline", "roofline", "dominant_element_type", "element_type_of"]


class Bound(StrEnum):
    """Which roof limits a kernel."""

    COMPUTE = "compute"
    MEMORY = "memory"


@dataclass(frozen=True, slots=True)
class Roofline:
    """Achieved rates and the roofline position of one measured program or kernel."""

    flops_per_s: float | None
    bytes_per_s: float | None
    peak_flops_per_s: float | None
    peak_bytes_per_s: float | None
    bound: Bound | None
    fraction: float | None  # roofline limit time / measured time
    element_type: str | None = None
    note: str = ""

    def contract(self) -> dict[str, Any]:
        """The ``roofline`` object of the bench JSON."""
        return {
            "peak_flops_per_s": self.peak_flops_per_s,
            "peak_bytes_per_s": self.peak_bytes_per_s,
            "bound": self.bound.value if self.bound is not None else None,
        }


def _bound(flops: float, nbytes: float, peak: PeakChoice | None) -> Bound | None:
    if peak is None or (flops <= 0 and nbytes <= 0):
        return None
    if nbytes <= 0:
        return Bound.COMPUTE
    return Bound.COMPUTE if flops / nbytes >= peak.ridge else Bound.MEMORY


def roofline(flops: float, nbytes: float, seconds: float, peak: PeakChoice | None) -> Roofline:
    """The :class:`Roofline` of ``flops`` and ``nbytes`` done in ``seconds`` under ``peak``."""
    rate = (lambda amount: amount / seconds) if seconds > 0 else (lambda amount: None)
    flops_per_s, bytes_per_s = rate(flops), rate(nbytes)
    if peak is None:
        return Roofline(flops_per_s, bytes_per_s, None, None, None, None)
    limit = max(
        flops / peak.flops_per_s if peak.flops_per_s > 0 else 0.0,
        nbytes / peak.bytes_per_s if peak.bytes_per_s > 0 else 0.0,
    )
    fraction = limit / seconds if seconds > 0 and limit > 0 else None
    return Roofline(
        flops_per_s,
        bytes_per_s,
        peak.flops_per_s,
        peak.bytes_per_s,
        _bound(flops, nbytes, peak),
        fraction,
        peak.element_type,
        peak.note,
    )


def element_type_of(shape: str) -> str:
    """``f32`` of ``f32[8,128]{1,0}`` (the first element's type for a tuple)."""
    text = shape.lstrip("(")
    return text.split("[", 1)[0] if "[" in text else ""


def dominant_element_type(report: FusionReport) -> str | None:
    """The element type most of a program's FLOPs produce (by bytes when it has none)."""
    flops: Counter[str] = Counter()
    traffic: Counter[str] = Counter()
    for kernel in report.kernels:
        element = element_type_of(kernel.shape)
        if element:
            flops[element] += kernel.cost.flops * kernel.executions
            traffic[element] += kernel.cost.bytes_accessed * kernel.executions
    for counts in (flops, traffic):
        if sum(counts.values()) > 0:
            return counts.most_common(1)[0][0]
    return None

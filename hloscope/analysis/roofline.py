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

A measured CPU has two memory roofs (:meth:`~.peaks.DevicePeak.memory_roofs`): its last-level
cache's bandwidth and main memory's. A program whose **working set** (by default its bytes;
for a whole program, its largest kernel's bytes per execution, passed as ``working_set``) fits
in the cache is judged against the cache roof, any other against main memory's (the memory
roof was measured over arrays several times the cache, so no cache helps there either). A
program above its roofs has ``fraction > 1`` and :attr:`Roofline.beaten` names the roofs it
beat: the peak underrated this machine (:func:`hloscope.bench.api.bench` then raises a
measured peak and says so, see :func:`hloscope.bench.peaks.raise_cpu_peak`).

:func:`roofline_seconds` goes the other way: the seconds a cost (FLOPs, bytes) takes at
the roof, what the step estimate and the collectives' overlap price compute by.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .hbm import kernel_roof_bytes
from .peaks import DevicePeak, MemoryLevel, MemoryRoof, PeakChoice

if TYPE_CHECKING:  # pragma: no cover
    from .cost import Cost
    from .fusions import FusionReport

__all__ = [
    "Bound",
    "Roofline",
    "roofline",
    "memory_roof",
    "dominant_element_type",
    "element_type_of",
    "largest_kernel_bytes",
    "roofline_seconds",
    "NO_ROOFLINE",
    "on_chip_roofline",
]


class Bound(StrEnum):
    """Which roof limits a kernel."""

    COMPUTE = "compute"
    MEMORY = "memory"
    #: Bytes only between on-chip memories (a TPU's ``S(1)``/``S(2)``) and no FLOP: neither
    #: roof applies, and the registry has no on-chip roof, so no fraction either.
    ON_CHIP = "on-chip"


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
    memory_level: MemoryLevel | None = None

    @property
    def beaten(self) -> tuple[str, ...]:
        """The roofs the measured rates exceed: ``compute``, ``memory`` or ``cache``."""
        found = []
        if _above(self.flops_per_s, self.peak_flops_per_s):
            found.append(Bound.COMPUTE.value)
        if _above(self.bytes_per_s, self.peak_bytes_per_s) and self.memory_level is not None:
            found.append(self.memory_level.value)
        return tuple(found)

    def contract(self) -> dict[str, Any]:
        """The ``roofline`` object of the bench JSON."""
        return {
            "peak_flops_per_s": self.peak_flops_per_s,
            "peak_bytes_per_s": self.peak_bytes_per_s,
            "bound": self.bound.value if self.bound is not None else None,
            "memory_level": self.memory_level.value if self.memory_level is not None else None,
        }


def _above(rate: float | None, roof: float | None) -> bool:
    return rate is not None and roof is not None and roof > 0 and rate > roof


def _bound(flops: float, nbytes: float, peak_flops: float, peak_bytes: float) -> Bound | None:
    if flops <= 0 and nbytes <= 0:
        return None
    if nbytes <= 0 or peak_bytes <= 0:
        return Bound.COMPUTE
    return Bound.COMPUTE if flops / nbytes >= peak_flops / peak_bytes else Bound.MEMORY


#: An async op's line (a start's issue, a done's wait): no rate, no bound, no position; its
#: transfer is shown as overlap (:mod:`hloscope.analysis.op_profile.overlap`).
NO_ROOFLINE = Roofline(None, None, None, None, None, None)


def on_chip_roofline(peak: PeakChoice) -> Roofline:
    """The line of a kernel with no FLOP and no HBM byte whose bytes stay on chip: bound
    :attr:`Bound.ON_CHIP`, no position."""
    return Roofline(None, None, peak.flops_per_s, None, Bound.ON_CHIP, None, peak.element_type)


def memory_roof(roofs: tuple[MemoryRoof, ...], working_set: float) -> MemoryRoof:
    """The roof a working set of ``working_set`` bytes is judged against: the fastest memory
    it fits in (see the module docstring)."""
    fits = [r for r in roofs if r.capacity is None or working_set <= r.capacity]
    # The smallest memory it fits in; a cache is never slower than the memory behind it, so
    # when a program raised the memory roof past the cache's measured rate (a recalibration),
    # the cache is judged at that rate too instead of handing the verdict to main memory.
    fastest = max(r.bytes_per_s for r in (fits or roofs[:1]))
    smallest = min(
        fits or roofs[:1], key=lambda r: float("inf") if r.capacity is None else r.capacity
    )
    return MemoryRoof(smallest.level, fastest, smallest.capacity)


def roofline(
    flops: float,
    nbytes: float,
    seconds: float,
    peak: PeakChoice | None,
    working_set: float | None = None,
) -> Roofline:
    """The :class:`Roofline` of ``flops`` and ``nbytes`` done in ``seconds`` under ``peak``;
    ``working_set`` (bytes, default ``nbytes``) picks the memory roof."""
    rate = (lambda amount: amount / seconds) if seconds > 0 else (lambda amount: None)
    flops_per_s, bytes_per_s = rate(flops), rate(nbytes)
    if peak is None:
        return Roofline(flops_per_s, bytes_per_s, None, None, None, None)
    roof = memory_roof(peak.device.memory_roofs(), nbytes if working_set is None else working_set)
    limit = max(
        flops / peak.flops_per_s if peak.flops_per_s > 0 else 0.0,
        nbytes / roof.bytes_per_s if roof.bytes_per_s > 0 else 0.0,
    )
    fraction = limit / seconds if seconds > 0 and limit > 0 else None
    return Roofline(
        flops_per_s,
        bytes_per_s,
        peak.flops_per_s,
        roof.bytes_per_s,
        _bound(flops, nbytes, peak.flops_per_s, roof.bytes_per_s),
        fraction,
        peak.element_type,
        peak.note,
        roof.level,
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


def largest_kernel_bytes(report: FusionReport) -> int:
    """The bytes one execution of a program's largest kernel reads and writes: the working
    set a whole program is judged by (its kernels run one after the other, so it is the
    largest of them that has to fit in a cache, not their sum)."""
    return max(map(kernel_roof_bytes, report.kernels), default=0)


def roofline_seconds(cost: Cost, peak: DevicePeak) -> float:
    """Seconds of ``cost`` on ``peak``'s roofline: the slower of its FLOPs at the bf16 peak
    (a TPU's or GPU's matmul rate; the largest figure when there is no bf16 one) and its bytes
    at the memory bandwidth."""
    table = peak.flops_per_s
    flops_rate = table.get("bf16") or max(table.values())
    return max(cost.flops / flops_rate, cost.bytes_accessed / peak.bytes_per_s)

"""Will it fit: a module's peak memory against a device, padded to TPU tiles on a TPU.

:func:`device_report` is the ``device`` object of ``hloscope memory --device NAME``: the
device's memory from :mod:`.fit` (the device registry's), the limit the peak is judged
against (a fraction of that memory, 80% unless told), whether the peak fits under it and the
headroom left.

On a TPU an array takes whole tiles (:mod:`hloscope.analysis.memory.tpu_padding`), so the
peak a TPU would see is larger than the bytes of data. The padded peak is the logical peak with
each buffer live at the peak counted at its padded size, at the same moment of the schedule:
padding can make another moment the largest, but the buffers live at the logical peak are the
ones the report lists, and a dump of a TPU compile already holds padded sizes, so there the two
agree. On a TPU the verdict is the padded peak's, and the arrays that padding inflates by more
than 25% are listed (name, shape, logical and padded bytes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...devices import Device, DeviceSpec
from ...hlo.errors import HloParseError
from ...hlo.shape import Shape, parse_shape
from ._result import MemorySource
from .fit import DEFAULT_LIMIT, fits, memory_device, parse_limit
from .tpu_padding import INFLATION_THRESHOLD, inflated_arrays, padded_size

if TYPE_CHECKING:  # pragma: no cover
    from ._result import LiveBuffer, MemoryResult

__all__ = ["PaddedPeak", "padded_peak", "verdict_peak", "device_report"]


@dataclass(frozen=True, slots=True)
class PaddedPeak:
    """A result's peak with the buffers live there at their TPU-padded size, and the arrays
    padding inflates by more than the threshold: ``(name, shape, logical, padded)``."""

    logical_bytes: int
    padded_bytes: int
    inflated: list[tuple[str, str, int, int]]


def _array_shape(buffer: LiveBuffer) -> Shape | None:
    """The buffer's shape when it is one array; ``None`` for a tuple's pointer table (its
    elements are buffers of their own) or a shape that does not parse."""
    try:
        shape = parse_shape(buffer.shape)
    except (HloParseError, ValueError):
        return None
    return None if shape.is_tuple else shape


def padded_peak(result: MemoryResult, threshold: float = INFLATION_THRESHOLD) -> PaddedPeak:
    """``result``'s peak with each live buffer at its padded size (never below the bytes the
    result gives it: a TPU dump's sizes are padded already)."""
    extra = 0
    arrays: list[tuple[str, Shape]] = []
    for buffer in result.live_at_peak:
        shape = _array_shape(buffer)
        size = padded_size(shape) if shape is not None else None
        if shape is None or size is None:
            continue
        extra += max(0, size.padded_bytes - buffer.bytes)
        arrays.append((buffer.name, shape))
    inflated = [
        (a.name, a.shape, a.size.logical_bytes, a.size.padded_bytes)
        for a in inflated_arrays(arrays, threshold)
    ]
    return PaddedPeak(result.peak_bytes, result.peak_bytes + extra, inflated)


def verdict_peak(result: MemoryResult, device: Device) -> int:
    """The peak a device is judged by: padded to tiles on a TPU, as it is elsewhere."""
    return padded_peak(result).padded_bytes if device.is_tpu else result.peak_bytes


def device_report(
    result: MemoryResult, device: str | Device | DeviceSpec, limit: float | str = DEFAULT_LIMIT
) -> dict[str, Any]:
    """The ``device`` object of ``hloscope memory --json``: ``name``, ``memory_bytes``,
    ``limit_bytes``, ``fits``, then ``limit``, ``headroom_bytes``, the
    capacity's ``source`` and the ``peak_bytes`` judged; on a TPU also ``logical_peak_bytes``,
    ``padded_peak_bytes`` and ``inflated`` (``name``, ``shape``, ``logical_bytes``,
    ``padded_bytes`` of each array padding grows by more than 25%)."""
    entry = memory_device(device)
    # XLA:TPU's own peak already holds its layouts' padding: nothing to add to it.
    exact = result.source == MemorySource.XLA_TPU or result.refused is not None
    padded = padded_peak(result) if entry.is_tpu and not exact else None
    peak = padded.padded_bytes if padded is not None else result.peak_bytes
    if result.refused is not None:  # the compiler's own verdict: it does not fit
        peak = max(peak, result.figures.get("required_bytes", 0))
    verdict = fits(peak, entry, parse_limit(limit))
    report = verdict.to_dict()
    report["peak_bytes"] = peak
    if result.refused is not None:
        report["fits"] = False
        report["does_not_compile"] = True
    if exact and result.refused is None:
        report["peak_is"] = "XLA:TPU's peak_memory_in_bytes (its layouts' padding included)"
    if padded is not None:
        report["logical_peak_bytes"] = padded.logical_bytes
        report["padded_peak_bytes"] = padded.padded_bytes
        report["inflated"] = [
            {"name": n, "shape": s, "logical_bytes": lo, "padded_bytes": pa}
            for n, s, lo, pa in padded.inflated
        ]
    return report

"""Will it fit: a module's peak memory against a device, padded to TPU tiles on a TPU.

:func:`device_report` is the ``device`` object of ``hloscope memory --device NAME``: the
device's memory from :mod:`.fit` (the device registry's), the limit the peak is judged
against (a fraction of that memory, 80% unless told), whether the peak fits under it and the
headroom left.

The verdict is one of three (:class:`Verdict`), in distinct words: **fits** (under the
limit), **fits above the limit** (the limit is the user's margin: above it is a warning, and
for XLA:TPU's own peak the chip runs the program), and **does not fit** -- only for a compile
XLA:TPU refused for memory, or a peak above the device's whole memory. A refused compile is
judged by the one figure XLA:TPU gave (what it needs, against the HBM it can use). A peak that
is not XLA:TPU's compile (a module another backend compiled, judged against a TPU) is an
estimate, and the report says so (``estimate``) with the way to get XLA:TPU's own.

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
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ...devices import Device, DeviceSpec, is_tpu_kind
from ...hlo.errors import HloParseError
from ...hlo.shape import Shape, parse_shape
from ._result import MemorySource
from .fit import DEFAULT_LIMIT, fits, memory_device, parse_limit
from .tpu_padding import INFLATION_THRESHOLD, inflated_arrays, padded_size

if TYPE_CHECKING:  # pragma: no cover
    from ._result import LiveBuffer, MemoryResult, Saving

__all__ = ["PaddedPeak", "Verdict", "padded_peak", "verdict_peak", "device_report", "verdict_of"]


class Verdict(StrEnum):
    """Whether a peak fits a device: under the limit, above it but in memory, or not."""

    FITS = "fits"
    FITS_ABOVE_LIMIT = "fits_above_limit"
    DOES_NOT_FIT = "does_not_fit"


def verdict_of(peak: int, memory_bytes: int, limit_bytes: int, refused: bool = False) -> Verdict:
    """The verdict of a peak: does not fit when refused or above the whole memory, fits above
    the limit between the two, fits under it."""
    if refused or peak > memory_bytes:
        return Verdict.DOES_NOT_FIT
    return Verdict.FITS if peak <= limit_bytes else Verdict.FITS_ABOVE_LIMIT


#: How to get XLA:TPU's own figure when the module is another backend's compile.
TPU_COMPILE_HINT = "hloscope memory SCRIPT.py:FUNCTION --device {device}"


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


def padded_peak(
    result: MemoryResult, threshold: float = INFLATION_THRESHOLD, device: Device | None = None
) -> PaddedPeak:
    """``result``'s peak with each live buffer at its padded size on ``device`` (its row's
    tile; the default TPU's when ``None``), never below the bytes the result gives it: a TPU
    dump's sizes are padded already."""
    extra = 0
    arrays: list[tuple[str, Shape]] = []
    for buffer in result.live_at_peak:
        shape = _array_shape(buffer)
        size = padded_size(shape, device) if shape is not None else None
        if shape is None or size is None:
            continue
        extra += max(0, size.padded_bytes - buffer.bytes)
        arrays.append((buffer.name, shape))
    inflated = [
        (a.name, a.shape, a.size.logical_bytes, a.size.padded_bytes)
        for a in inflated_arrays(arrays, threshold, device)
    ]
    return PaddedPeak(result.peak_bytes, result.peak_bytes + extra, inflated)


def verdict_peak(result: MemoryResult, device: Device) -> int:
    """The peak a device is judged by: padded to tiles on a TPU, as it is elsewhere."""
    if not device.is_tpu:
        return result.peak_bytes
    return padded_peak(result, device=device).padded_bytes


def device_report(
    result: MemoryResult, device: str | Device | DeviceSpec, limit: float | str = DEFAULT_LIMIT
) -> dict[str, Any]:
    """The ``device`` object of ``hloscope memory --json``: ``name``, ``memory_bytes``,
    ``limit_bytes``, ``verdict`` (``fits``, ``fits_above_limit``, ``does_not_fit``), ``fits``
    (it fits in memory: the verdict is not ``does_not_fit``), ``within_limit``, then ``limit``,
    ``headroom_bytes`` (under the limit; negative: over it), the capacity's ``source`` and
    the ``peak_bytes`` judged; ``estimate`` (why, and how to get XLA:TPU's) when the peak is
    not XLA:TPU's own compile of a TPU; for a refused compile ``does_not_compile`` and the
    ``available_bytes`` XLA:TPU said it could use; on a TPU for a module without TPU layouts
    also ``logical_peak_bytes``, ``padded_peak_bytes`` and ``inflated`` (``name``, ``shape``,
    ``logical_bytes``, ``padded_bytes`` of each array padding grows by more than 25%); and
    ``savings``: for each action of ``result.savings``, the peak after it and its verdict."""
    entry = memory_device(device)
    refused = result.refused is not None
    # XLA:TPU's own peak already holds its layouts' padding: nothing to add to it.
    exact = result.source == MemorySource.XLA_TPU or refused
    padded = padded_peak(result, device=entry) if entry.is_tpu and not exact else None
    peak = padded.padded_bytes if padded is not None else result.peak_bytes
    fraction = parse_limit(limit)
    fit = fits(peak, entry, fraction)
    report = fit.to_dict()
    report["peak_bytes"] = peak
    capacity = fit.memory_bytes
    if refused:  # the compiler's own verdict, against the memory it said it can use
        capacity = result.figures.get("available_bytes") or capacity
        report["does_not_compile"] = True
        if "available_bytes" in result.figures:
            report["available_bytes"] = capacity
    verdict = verdict_of(peak, capacity, fit.limit_bytes, refused)
    report["verdict"] = verdict.value
    report["fits"] = verdict != Verdict.DOES_NOT_FIT
    report["within_limit"] = verdict == Verdict.FITS
    if exact and not refused:
        report["peak_is"] = "XLA:TPU's peak_memory_in_bytes (its layouts' padding included)"
    why = _estimate(result, entry)
    if why is not None:
        report["estimate"] = why
    if padded is not None:
        report["logical_peak_bytes"] = padded.logical_bytes
        report["padded_peak_bytes"] = padded.padded_bytes
        report["inflated"] = [
            {"name": n, "shape": s, "logical_bytes": lo, "padded_bytes": pa}
            for n, s, lo, pa in padded.inflated
        ]
    report["savings"] = [_after(s, peak, capacity, fit.limit_bytes) for s in result.savings]
    return report


def _after(saving: Saving, peak: int, capacity: int, limit_bytes: int) -> dict[str, Any]:
    """A saving's peak after it and that peak's verdict. A rematerialisation's bytes are an
    upper bound (``jax.checkpoint`` keeps each block's inputs, and recomputing takes some
    back: measured on XLA:TPU, a checkpoint around every layer of an MLP left its peak as it
    was), so it gets no peak after it."""
    if saving.kind == "remat":
        return {"kind": saving.kind, "bytes": saving.bytes, "peak_after_bytes": None}
    after = max(0, peak - saving.bytes)
    return {
        "kind": saving.kind,
        "bytes": saving.bytes,
        "peak_after_bytes": after,
        "verdict_after": verdict_of(after, capacity, limit_bytes).value,
    }


def _estimate(result: MemoryResult, device: Device) -> str | None:
    """Why a TPU verdict is an estimate: the module is not XLA:TPU's compile (its buffers carry
    no TPU tiles), so its peak is another compiler's against the TPU's HBM."""
    if not device.is_tpu or result.source == MemorySource.XLA_TPU or _has_tpu_layouts(result):
        return None
    hint = TPU_COMPILE_HINT.format(device=device.name)
    return (
        f"an estimate: the module was not compiled by XLA:TPU (no TPU layouts), so this is its "
        f"own compiler's peak, padded to TPU tiles, against {device.name}'s HBM; XLA:TPU "
        f"lays out, fuses and schedules differently (a CPU compile's peak measured 1.1x to "
        f"12.5x XLA:TPU's on the same programs). For XLA:TPU's own figure: {hint}"
    )


def _has_tpu_layouts(result: MemoryResult) -> bool:
    """Whether the result's buffers print TPU tiles (``{1,0:T(8,128)}``): XLA:TPU made them."""
    return any(":T(" in b.shape for b in result.live_at_peak) or is_tpu_kind(result.compiled_for)

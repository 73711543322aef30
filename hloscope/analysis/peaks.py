"""How fast a device could go: its peak FLOP/s per element type and its memory roofs.

A :class:`DevicePeak` is what a roofline is drawn against. For TPUs and GPUs it is read from
the device registry (:mod:`hloscope.devices`: the vendors' own figures, per chip or per GPU,
each with its page) when it is asked for, so a row added with
:func:`hloscope.devices.register` has its peaks here at once: :func:`device_peak` of a row,
:func:`vendor_peak` of JAX's ``device_kind``, :func:`vendor_peaks` of every row with figures.
A CPU has no datasheet figure: :mod:`hloscope.bench.peaks` measures one and builds its
:class:`DevicePeak` (with a cache roof beside main memory's) from the measurement.

TPU pages state bf16 (and int8/fp8) peaks only: an f32 matmul on a TPU runs as several bf16
passes, so for an f32 program :meth:`DevicePeak.choose` takes the bf16 figure, with a note
saying so; every element type a row has no figure for falls back the same way
(:data:`_FAMILY`, nearest first).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..devices import Device, for_kind
from ..devices import devices as registry_rows
from ..json_fields import json_fields

__all__ = [
    "DevicePeak",
    "MemoryLevel",
    "MemoryRoof",
    "PeakChoice",
    "calibration_summary",
    "device_peak",
    "vendor_peak",
    "vendor_peaks",
]


class MemoryLevel(StrEnum):
    """Which memory a program's bytes are judged to come from."""

    MEMORY = "memory"  # main memory (DRAM, HBM)
    CACHE = "cache"  # the CPU's last-level cache and the levels above it


@dataclass(frozen=True, slots=True)
class MemoryRoof:
    """One memory roof: its level, bandwidth and how much data fits in it (``None``: any)."""

    level: MemoryLevel
    bytes_per_s: float
    capacity: int | None


@dataclass(frozen=True, slots=True)
class DevicePeak:
    """Peak figures of one device.

    ``name`` is the registry's ``--device`` name (``tpu-v5e``), or ``CPU (measured)``;
    ``flops_per_s`` maps an HLO element type (``bf16``, ``f32``...; ``s8`` for int8
    operations per second) to its peak; ``bytes_per_s`` is the memory bandwidth; ``source``
    names where the figures come from (a URL, or ``measured on this machine ...``); ``tpu``
    says f32 work runs as bf16 passes. A measured CPU also has ``cache_bytes_per_s``, the
    bandwidth while the data fits in its last-level cache of ``cache_bytes``, and
    ``calibration``, the cached record of how it was measured.
    """

    name: str
    flops_per_s: dict[str, float]
    bytes_per_s: float
    source: str
    note: str = ""
    measured: bool = False
    cache_bytes_per_s: float | None = None
    cache_bytes: int | None = None
    calibration: dict[str, Any] | None = None
    tpu: bool = False

    def memory_roofs(self) -> tuple[MemoryRoof, ...]:
        """The memory roofs, slowest first: main memory, then the cache when it was measured."""
        roofs = [MemoryRoof(MemoryLevel.MEMORY, self.bytes_per_s, None)]
        if self.cache_bytes_per_s and self.cache_bytes:
            roofs.append(MemoryRoof(MemoryLevel.CACHE, self.cache_bytes_per_s, self.cache_bytes))
        return tuple(roofs)

    def choose(self, element_type: str | None) -> PeakChoice:
        """The FLOP/s peak for a program whose work is mostly in ``element_type``."""
        wanted = element_type or "f32"
        table = self.flops_per_s
        if wanted in table:
            return PeakChoice(self, table[wanted], wanted)
        for candidate in _FAMILY.get(wanted, ()):
            if candidate in table:
                return PeakChoice(
                    self, table[candidate], candidate, self._fallback(wanted, candidate)
                )
        best = max(table, key=table.__getitem__)
        return PeakChoice(self, table[best], best, self._fallback(wanted, best))

    def _fallback(self, wanted: str, used: str) -> str:
        if self.tpu and wanted == "f32":
            return (
                f"{self.name} lists no f32 peak; f32 matmuls run as bf16 passes: {used} peak used"
            )
        return f"{self.name} lists no {wanted} peak; the {used} figure is used"

    def to_dict(self) -> dict[str, Any]:
        return {
            **json_fields(
                self,
                "name flops_per_s bytes_per_s source note measured cache_bytes_per_s cache_bytes",
            ),
            "calibration": calibration_summary(self.calibration),
        }


@dataclass(frozen=True, slots=True)
class PeakChoice:
    """The peak a roofline is drawn against: which device, which element type's figure."""

    device: DevicePeak
    flops_per_s: float
    element_type: str
    note: str = ""

    @property
    def bytes_per_s(self) -> float:
        return self.device.bytes_per_s

    @property
    def ridge(self) -> float:
        """FLOPs per byte where memory-bound turns into compute-bound."""
        return self.flops_per_s / self.bytes_per_s if self.bytes_per_s > 0 else float("inf")


# What stands in for an element type a row has no figure for, nearest first.
_FAMILY: dict[str, tuple[str, ...]] = {
    "f32": ("tf32", "bf16"),
    "f16": ("bf16",),
    "bf16": ("f16",),
    "f64": ("f32",),
    "c64": ("f32", "bf16"),
    "c128": ("f64", "f32"),
    "s8": ("bf16",),
    "u8": ("s8", "bf16"),
    "s32": ("f32", "bf16"),
    "pred": ("f32", "bf16"),
    # Every f8 flavour looks up the row's one "f8" figure.
    **dict.fromkeys(
        ("f8e4m3fn", "f8e5m2", "f8e4m3", "f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3b11fnuz"),
        ("f8", "bf16"),
    ),
}


def _source(device: Device) -> str:
    pages = dict.fromkeys(device.source(figure) for figure in ("flops_per_s", "memory_bytes_per_s"))
    return "; ".join(page for page in pages if page)


def device_peak(device: Device) -> DevicePeak | None:
    """The peak of a registry row, ``None`` when it lacks a FLOP/s or a bandwidth figure."""
    if not device.flops_per_s or not device.memory_bytes_per_s:
        return None
    return DevicePeak(
        device.name,
        dict(device.flops_per_s),
        device.memory_bytes_per_s,
        _source(device),
        device.note,
        tpu=device.is_tpu,
    )


def vendor_peak(device_kind: str) -> DevicePeak | None:
    """The peak of the first registry row JAX's ``device_kind`` (``TPU v5 lite``) matches."""
    row = for_kind(device_kind)
    return device_peak(row) if row is not None else None


def vendor_peaks() -> tuple[DevicePeak, ...]:
    """The peak of every registry row that has figures, in the registry's order (read now, so
    rows registered since import are there)."""
    found = (device_peak(row) for row in registry_rows())
    return tuple(peak for peak in found if peak is not None)


def calibration_summary(record: dict[str, Any] | None) -> dict[str, Any] | None:
    """How a measured peak was measured, for the JSON: per roof its rate, best-of and spread,
    the last-level cache size used, and the raises programs caused."""
    if not record:
        return None

    def roof(part: str, unit: str, extra: tuple[str, ...]) -> dict[str, Any]:
        data = record.get(part) or {}
        return {k: data.get(k) for k in (unit, "best_of", "spread", *extra)}

    return {
        "measured_at": record.get("measured_at"),
        "seconds": record.get("seconds"),
        "llc_bytes": record.get("llc_bytes"),
        "llc_source": record.get("llc_source"),
        "compute": roof("compute", "flops_per_s", ("kernel", "best_size")),
        "memory": roof("memory", "bytes_per_s", ("kernel", "array_bytes")),
        "cache": roof("cache", "bytes_per_s", ("kernel", "array_bytes")),
        "raised": list(record.get("raised") or []),
    }

"""Where a kernel's measured time sits under a chip's two roofs (offline, from the registry).

A kernel doing ``F`` FLOPs and moving ``B`` bytes in ``t`` seconds on a chip of peak ``P``
FLOP/s and memory bandwidth ``W`` cannot take less than ``max(F / P, B / W)``; its intensity
``F / B`` against the ridge ``P / W`` says which roof binds (``compute`` or ``memory``), and
``fraction`` is that limit over ``t`` (1.0: at the roof). The peak is the chip's for the
kernel's element type (``bf16``...), else its highest (TPU pages state bf16 only: an f32
product runs as bf16 passes). Figures come from :mod:`hloscope.devices`; this is the roofline
of ``hloscope.bench.roofline`` without a measured CPU peak, which a trace read offline lacks.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...devices import Device

__all__ = ["Position", "position", "element_type", "ON_CHIP"]


def element_type(shape: str) -> str:
    """``bf16`` of ``bf16[8,128]{1,0}`` (the first element's type of a tuple)."""
    text = shape.lstrip("(")
    return text.split("[", 1)[0] if "[" in text else ""


@dataclass(frozen=True, slots=True)
class Position:
    """Which roof binds and how close the measured time comes to it."""

    bound: str  # "compute" or "memory"
    fraction: float | None


#: The bound of a kernel that moves bytes only between on-chip memories (``S(1)``/``S(2)`` on a
#: TPU) and does no FLOP: neither HBM nor the MXU limits it, and the registry has no roof for
#: on-chip memory, so it has a bound and no position.
ON_CHIP = "on-chip"


def position(
    flops: float,
    nbytes: float,
    seconds: float,
    device: Device | None,
    element: str = "",
    all_bytes: float = 0.0,
) -> Position | None:
    """The roofline position of ``flops`` and ``nbytes`` (through HBM) done in ``seconds`` on
    ``device`` (``None`` without a device, or for a kernel that neither computes nor moves
    bytes). A kernel whose bytes (``all_bytes``) all stay on chip and that does no FLOP is
    bound :data:`ON_CHIP`, with no fraction: every kernel with bytes or FLOPs has a bound."""
    if device is None:
        return None
    if flops <= 0 and nbytes <= 0:
        return Position(ON_CHIP, None) if all_bytes > 0 else None
    peaks = device.flops_per_s
    peak = peaks.get(element) or max(peaks.values(), default=0.0)
    bandwidth = device.memory_bytes_per_s or 0.0
    compute = flops / peak if peak > 0 else 0.0
    memory = nbytes / bandwidth if bandwidth > 0 else 0.0
    if compute == 0 and memory == 0:
        return None
    bound = "compute" if compute >= memory else "memory"
    limit = max(compute, memory)
    return Position(bound, limit / seconds if seconds > 0 else None)

"""Whether a program's peak fits in a device's memory.

A device's memory is its row's in the device registry (:mod:`hloscope.devices`: per chip or
per GPU, as the vendor states it, in binary units as the runtimes report them, with the page
it comes from), read when it is asked for, so a registered row is judged as a built-in one. A
device is named the way ``--device`` takes it (``tpu-v5e``, ``h100``, ``a100-80gb``; a TPU
slice ``tpu-v5e:2x4`` is judged per chip), or by the ``device_kind`` JAX reports (``TPU v5
lite``). A bare ``a100`` is the 40 GB model: of the two sizes, the one a "fits" verdict holds
for on both.

:func:`fits` compares a peak with a device: a program should not plan to use all of it (the
runtime, the compiled code and fragmentation take their share), so the verdict is against a
fraction, :data:`DEFAULT_LIMIT` (80%, the TPU guides' rule of thumb), and ``headroom_bytes``
says how far under (or, negative, over) that limit the peak is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...devices import Device, DeviceSpec, UnknownDeviceError, parse_device
from ...devices import devices as registry_rows
from ...errors import UsageProblem
from ...json_fields import json_fields

__all__ = [
    "DEFAULT_LIMIT",
    "FitResult",
    "fits",
    "memory_device",
    "memory_devices",
    "parse_limit",
]

#: The fraction of device memory a program is judged against by default.
DEFAULT_LIMIT = 0.8


def memory_devices() -> tuple[Device, ...]:
    """Every registry row whose memory is known, in the registry's order (read now)."""
    return tuple(row for row in registry_rows() if row.memory_bytes is not None)


def memory_device(device: str | Device | DeviceSpec) -> Device:
    """The registry row of ``device`` (a name, alias, ``device_kind`` or slice), which must
    know its memory. Raises :class:`~hloscope.devices.UnknownDeviceError` naming the rows that
    do."""
    row = parse_device(device).device
    if row.memory_bytes is None:
        known = ", ".join(r.name for r in memory_devices())
        raise UnknownDeviceError(
            f"hloscope does not know {row.name}'s memory: it knows that of {known}"
        )
    return row


def parse_limit(text: str | float) -> float:
    """A limit as a fraction of device memory: ``"80%"`` -> 0.8, ``"0.8"`` -> 0.8, ``0.8``.
    Raises :class:`~hloscope.errors.UsageProblem` outside (0, 1]."""
    if isinstance(text, str):
        raw = text.strip()
        try:
            value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
        except ValueError:
            raise UsageProblem(f"--limit {text!r}: give a percentage (80%) or a fraction") from None
    else:
        value = float(text)
    if not 0 < value <= 1:
        raise UsageProblem(f"--limit {text!r}: must be above 0% and at most 100%")
    return value


@dataclass(frozen=True, slots=True)
class FitResult:
    """A peak against a device: the device's ``memory_bytes``, the ``limit_bytes`` the peak is
    judged against (``limit`` of it), whether it ``fits``, and the ``headroom_bytes`` left
    under the limit (negative: that much over)."""

    device: Device
    peak_bytes: int
    memory_bytes: int
    limit: float
    limit_bytes: int
    fits: bool
    headroom_bytes: int

    def to_dict(self) -> dict[str, Any]:
        """The ``device`` object of ``hloscope memory --json``."""
        return {
            "name": self.device.name,
            **json_fields(self, "memory_bytes limit_bytes fits limit headroom_bytes"),
            "source": self.device.source("memory_bytes"),
        }


def fits(
    peak_bytes: int, device: str | Device | DeviceSpec, limit: float | str = DEFAULT_LIMIT
) -> FitResult:
    """Whether a program peaking at ``peak_bytes`` fits ``device`` under ``limit`` (a
    fraction of its memory): fits when the peak is at most ``limit_bytes``."""
    row = memory_device(device)
    memory_bytes = row.memory_bytes or 0
    fraction = parse_limit(limit)
    limit_bytes = int(memory_bytes * fraction)
    return FitResult(
        row,
        peak_bytes,
        memory_bytes,
        fraction,
        limit_bytes,
        peak_bytes <= limit_bytes,
        limit_bytes - peak_bytes,
    )

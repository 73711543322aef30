"""Every device of a trace side by side: how long each was busy, which one is the slowest.

An SPMD program runs the same module on every chip, so the chips' busy times should agree; one
that is busy longer (more work under an uneven sharding, a slower chip, a straggler's
collectives) holds every step back. The op profile shows one device's kernels
(:func:`~hloscope.profile.read_trace`'s ``trace_device``); this module gives the
others' total: each device's op time (:attr:`hloscope.profile.Trace.busy_ns`, every module's
ops), per step when the steps were counted, and the spread between the fastest and the slowest.
A trace of one device has no spread to show, and gets none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...profile import Trace, device_ordinal

__all__ = ["DeviceBusy", "DeviceSpread", "device_spread", "DEVICE_KEYS"]

#: The keys of a device row in ``--json``, in order.
DEVICE_KEYS = ("name", "ordinal", "busy_ns", "busy_per_step_ns", "shown")


@dataclass(frozen=True, slots=True)
class DeviceBusy:
    """One device's op time in the trace: ``busy_ns`` over the whole trace, and
    ``busy_per_step_ns`` per step (``None`` when the trace counts no step). ``shown`` tells
    the device whose kernels the profile lists."""

    name: str
    ordinal: int
    busy_ns: float
    busy_per_step_ns: float | None
    shown: bool

    @property
    def time_ns(self) -> float:
        """The time devices are compared by: per step when there are steps, else in all."""
        return self.busy_ns if self.busy_per_step_ns is None else self.busy_per_step_ns

    def row(self) -> dict[str, Any]:
        """The ``--json`` device object (:data:`DEVICE_KEYS`)."""
        return {key: getattr(self, key) for key in DEVICE_KEYS}


@dataclass(frozen=True, slots=True)
class DeviceSpread:
    """The devices of a trace, in ordinal order, and the spread of their busy times."""

    devices: tuple[DeviceBusy, ...]

    @property
    def per_step(self) -> bool:
        return all(d.busy_per_step_ns is not None for d in self.devices)

    @property
    def shown(self) -> DeviceBusy:
        return next(d for d in self.devices if d.shown)

    @property
    def fastest(self) -> DeviceBusy:
        """The device busy the shortest time (the lowest ordinal of a tie)."""
        return min(self.devices, key=lambda d: d.time_ns)

    @property
    def slowest(self) -> DeviceBusy:
        """The device busy the longest time (the lowest ordinal of a tie)."""
        return max(self.devices, key=lambda d: d.time_ns)

    @property
    def over_fastest(self) -> float:
        """How much longer the slowest was busy than the fastest, as a fraction of the
        fastest's time (0.042: 4.2% longer)."""
        fastest = self.fastest.time_ns
        return self.slowest.time_ns / fastest - 1 if fastest > 0 else 0.0

    def rows(self) -> list[dict[str, Any]]:
        """The ``--json`` ``devices`` list."""
        return [d.row() for d in self.devices]


def device_spread(trace: Trace, steps: int | None) -> DeviceSpread | None:
    """The busy time of each device of ``trace`` (per step over ``steps`` when the steps were
    counted, ``None`` when not), or ``None`` for a trace of fewer than two devices."""
    if len(trace.busy_ns) < 2:
        return None
    return DeviceSpread(
        tuple(
            DeviceBusy(
                name=name,
                ordinal=device_ordinal(name),
                busy_ns=busy,
                busy_per_step_ns=busy / steps if steps else None,
                shown=name == trace.device,
            )
            for name, busy in trace.busy_ns.items()
        )
    )

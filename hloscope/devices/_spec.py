"""What ``--device`` means, the same in every command: a chip, and for a TPU, a slice of them.

``tpu-v5e`` is one v5e chip; ``tpu-v5e:2x4`` a slice of eight in a 2 x 4 torus;
``tpu-v5p:4x4x4`` sixty-four v5p chips. :func:`parse_device` reads that spelling into a
:class:`DeviceSpec`, which also knows how libtpu names the slice (``v5e:2x4``) for a compile
with XLA:TPU on a machine without the chip.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from ._model import Device
from ._registry import lookup
from .errors import UnknownDeviceError

__all__ = ["DeviceSpec", "parse_device"]

_SLICE = re.compile(r"^\d+(x\d+)*$")


@dataclass(frozen=True, slots=True)
class DeviceSpec:
    """A device row and, for a TPU slice, its shape in chips (``(2, 4)``; ``None``: one chip)."""

    device: Device
    slice: tuple[int, ...] | None = None

    @property
    def chips(self) -> int:
        """How many chips the spec names."""
        return math.prod(self.slice) if self.slice else 1

    @property
    def topology_name(self) -> str | None:
        """libtpu's name of this slice (``v5e:2x4``), ``None`` for a chip libtpu cannot name."""
        topology = self.device.tpu_topology
        if topology is None:
            return None
        if self.slice is None:
            return topology.single_chip()
        return f"{topology.prefix}:" + "x".join(map(str, self.slice))

    @property
    def host_bounds(self) -> tuple[int, int, int]:
        """The chips per host libtpu is told, so that the slice divides into hosts: the
        chip's usual host (2 x 2 x 1 chips) cut down to the slice where it is smaller."""
        topology = self.device.tpu_topology
        default = topology.host_bounds if topology else (2, 2, 1)
        shape = (*(self.slice or (1,) * (topology.dims if topology else 2)), 1, 1)[:3]
        return tuple(math.gcd(s, d) for s, d in zip(shape, default))  # type: ignore[return-value]

    @property
    def jax_devices(self) -> int:
        """How many JAX devices the slice shows (chips times cores JAX sees per chip)."""
        topology = self.device.tpu_topology
        return self.chips * (topology.cores_per_chip if topology else 1)

    def __str__(self) -> str:
        if self.slice is None:
            return self.device.name
        return f"{self.device.name}:" + "x".join(map(str, self.slice))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.device.name,
            "slice": "x".join(map(str, self.slice)) if self.slice else None,
            "chips": self.chips,
            "device_kind": self.device.device_kind,
        }


def parse_device(text: str | DeviceSpec | Device) -> DeviceSpec:
    """``"tpu-v5e"``, ``"tpu-v5e:2x4"``, ``"v5p:4x4x4"``, or JAX's ``"TPU v5 lite"``, as a
    :class:`DeviceSpec`. Raises :class:`UnknownDeviceError` for a name no row holds and for a
    slice shape the chip's torus cannot take (a 3-D shape for a 2-D chip, a GPU slice)."""
    if isinstance(text, DeviceSpec):
        return text
    if isinstance(text, Device):
        return DeviceSpec(text)
    name, _, shape = text.strip().partition(":")
    device = lookup(name)
    if not shape:
        return DeviceSpec(device)
    shape = shape.strip().lower()
    if not _SLICE.match(shape):
        raise UnknownDeviceError(
            f"--device {text!r}: a slice is chips per torus axis, like tpu-v5e:2x4"
        )
    sizes = tuple(int(s) for s in shape.split("x"))
    topology = device.tpu_topology
    if topology is None:
        what = "is not a TPU" if not device.is_tpu else "has no slice names hloscope knows"
        raise UnknownDeviceError(f"--device {text!r}: {device.name} {what}; name it alone")
    if len(sizes) != topology.dims or min(sizes) < 1:
        example = "x".join(["2"] * topology.dims)
        raise UnknownDeviceError(
            f"--device {text!r}: {device.name} slices are {topology.dims}-D "
            f"({device.name}:{example})"
        )
    if math.prod(sizes) == 1:
        return DeviceSpec(device)
    return DeviceSpec(device, sizes)

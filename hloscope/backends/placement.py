"""Example arguments placed on a topology's devices: what a compile for another chip or slice
traces with.

An example argument is an array (or a ``jax.ShapeDtypeStruct``) of this machine; a compile for
a TPU slice needs the same shapes and dtypes on the slice's devices. :func:`place_arguments`
makes each one a ``ShapeDtypeStruct`` there: an argument sharded over a mesh keeps its mesh's
axis names and partitioning on the slice's devices (``--mesh`` may reshape it), any other is
on the one chip or replicated over all of them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..devices import DeviceSpec
from .errors import CaptureUsageError

__all__ = ["place_arguments"]


def place_arguments(
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    devices: list[Any],
    spec: DeviceSpec,
    mesh_shape: Mapping[str, int] | None,
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``args`` and ``kwargs`` with every array made a ``ShapeDtypeStruct`` on ``devices``."""
    import jax

    meshes: dict[Any, Any] = {}
    whole = _Whole(devices)

    def place(leaf: Any) -> Any:
        if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            return leaf  # a Python scalar, a string, None: as the function takes it
        sharding = getattr(leaf, "sharding", None)
        mesh = getattr(sharding, "mesh", None)
        if mesh is not None and getattr(mesh, "axis_names", None):
            key = (tuple(mesh.axis_names), tuple(mesh.devices.shape))
            if key not in meshes:
                meshes[key] = _rebuilt_mesh(mesh, devices, spec, mesh_shape)
            partition: Any = getattr(sharding, "spec", None)
            new = jax.sharding.NamedSharding(meshes[key], partition)
        else:
            new = whole.sharding()
        return jax.ShapeDtypeStruct(
            leaf.shape, leaf.dtype, sharding=new, weak_type=bool(getattr(leaf, "weak_type", False))
        )

    placed = jax.tree_util.tree_map(place, (tuple(args), dict(kwargs)))
    return placed[0], placed[1]


class _Whole:
    """The sharding of an argument that named no mesh: the one chip, or replicated over all."""

    def __init__(self, devices: list[Any]) -> None:
        self.devices = devices
        self._made: Any = None

    def sharding(self) -> Any:
        if self._made is None:
            import jax
            import numpy as np

            if len(self.devices) == 1:
                self._made = jax.sharding.SingleDeviceSharding(self.devices[0])
            else:
                mesh = jax.sharding.Mesh(np.array(self.devices), ("chips",))
                self._made = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())
        return self._made


def _rebuilt_mesh(
    mesh: Any, devices: list[Any], spec: DeviceSpec, mesh_shape: Mapping[str, int] | None
) -> Any:
    """``mesh`` (of this machine's devices) on the slice's devices: the same axis names, the
    same shape unless ``mesh_shape`` gives one; its size must be the slice's."""
    import jax
    import numpy as np

    names = tuple(mesh.axis_names)
    shape = tuple(mesh.devices.shape)
    if mesh_shape:
        missing = [n for n in names if n not in mesh_shape]
        if missing or len(mesh_shape) != len(names):
            raise CaptureUsageError(
                f"--mesh {_spell(mesh_shape)}: the arguments' mesh has axes "
                f"{', '.join(names)}; give a size for each"
            )
        shape = tuple(int(mesh_shape[n]) for n in names)
    if math.prod(shape) != len(devices):
        raise CaptureUsageError(
            f"the example arguments' mesh {_spell(dict(zip(names, shape)))} has "
            f"{math.prod(shape)} devices and {spec} has {len(devices)}: pick a slice of that "
            f"size or give --mesh with sizes multiplying to {len(devices)}"
        )
    return jax.sharding.Mesh(np.array(devices).reshape(shape), names)


def _spell(shape: Mapping[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in shape.items())

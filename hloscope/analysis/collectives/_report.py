"""``hloscope collectives``' result for one module: its collectives, mesh, parameters, totals.

:func:`collectives_of` reads a module; :func:`collectives_results` resolves a target's modules
(the main module, ``--module NAME`` or all). Times are ``None`` until a device prices them
(:func:`hloscope.bench.interconnect.price`), and the JSON says so in ``notes``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...hlo.model import Module
from ._find import Collective, find_collectives
from ._groups import DeviceMesh

__all__ = ["CollectivesResult", "ParameterSharding", "collectives_of", "collectives_results"]


@dataclass(frozen=True, slots=True)
class ParameterSharding:
    """An entry parameter after partitioning: its per-device shape, the sharding it was split
    by, and the global shape that sharding implies (each dimension times its tile count)."""

    name: str
    shape: str
    sharding: str
    per_device_shape: str
    per_device_bytes: int
    replicated: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "shape": self.shape,
            "sharding": self.sharding,
            "per_device_shape": self.per_device_shape,
            "per_device_bytes": self.per_device_bytes,
            "replicated": self.replicated,
        }


@dataclass(slots=True)
class CollectivesResult:
    module: str
    devices: int
    mesh: DeviceMesh | None
    collectives: list[Collective]
    parameters: list[ParameterSharding]
    device: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def total_bytes(self) -> int:
        return sum(c.bytes for c in self.collectives)

    @property
    def executed_bytes(self) -> int:
        return sum(c.executed_bytes for c in self.collectives)

    @property
    def estimate_s(self) -> float | None:
        """All collectives' seconds per call (each times its executions)."""
        if self.device is None:
            return None
        return sum((c.estimate_s or 0.0) * c.executions for c in self.collectives)

    @property
    def exposed_s(self) -> float | None:
        """Sync collectives whole, async ones less the compute scheduled under them."""
        if self.device is None:
            return None
        return sum((c.exposed_s or 0.0) * c.executions for c in self.collectives)

    def to_dict(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "devices": self.devices,
            "mesh": self.mesh.to_dict() if self.mesh is not None else None,
            "collectives": [_collective_dict(c) for c in self.collectives],
            "totals": {
                "count": len(self.collectives),
                "bytes": self.total_bytes,
                "executed_bytes": self.executed_bytes,
                "estimate_s": self.estimate_s,
                "exposed_s": self.exposed_s,
            },
            "parameters": [p.to_dict() for p in self.parameters],
            "device": self.device,
            "notes": list(self.notes),
        }


def _collective_dict(c: Collective) -> dict[str, Any]:
    return {
        "name": c.name,
        "kind": c.kind.value,
        "async": c.is_async,
        "shapes": {"operands": list(c.operand_shapes), "result": c.result_shape},
        "bytes": c.bytes,
        "group_size": c.group_size,
        "groups": [list(g) for g in c.groups],
        "num_groups": c.num_groups,
        "channel_id": c.channel_id,
        "executions": c.executions,
        "where": c.where,
        "mesh_axes": c.mesh_axes,
        "op_name": c.op_name,
        "source": c.source,
        "done": c.done,
        "estimate_s": c.estimate_s,
        "exposed_s": c.exposed_s,
    }


def collectives_of(module: Module) -> CollectivesResult:
    """Every collective of ``module`` (see :mod:`._find`) with its mesh and parameters."""
    found, mesh, devices = find_collectives(module)
    return CollectivesResult(module.name, devices, mesh, found, _parameters(module))


def _parameters(module: Module) -> list[ParameterSharding]:
    entry = module.entry
    if entry is None:
        return []
    out = []
    for param in entry.parameters:
        sharding = param.attrs.get("sharding") if "sharding=" in param.attr_text else None
        shape = param.shape
        local = list(shape.dims) if shape.is_array else []
        tiles = list(getattr(sharding, "tile_dims", ()) or ())
        global_dims = [(d or 0) * (tiles[i] if i < len(tiles) else 1) for i, d in enumerate(local)]
        glob = shape.to_text(layout=False)
        if shape.is_array and sharding is not None and getattr(sharding, "is_tiled", False):
            glob = f"{shape.dtype}[{','.join(map(str, global_dims))}]"
        out.append(
            ParameterSharding(
                name=param.name,
                shape=glob,
                sharding=str(sharding) if sharding is not None else "",
                per_device_shape=shape.to_text(layout=False),
                per_device_bytes=sum(leaf.byte_size or 0 for leaf in shape.leaves()),
                replicated=sharding is None or bool(sharding.is_replicated),
            )
        )
    return out


def collectives_results(
    target: Any, *, module: str | None = None, all_modules: bool = False
) -> list[CollectivesResult]:
    """One result per chosen optimized module of ``target`` (a resolved CLI target)."""
    if all_modules:
        modules = target.modules("after")
    else:
        modules = [target.choose_module("after", module).module]
    return [collectives_of(m) for m in modules]

"""The sharding view: how each entry parameter and output is split over the devices, in words.

**Reading a sharding.** A tiled sharding ``{devices=[4,1,2]<=[8] last_tile_dim_replicate}``
cuts an array into a grid of tiles, one tile dimension per array dimension (4 x 1 here), and
its trailing dimension lists the devices holding the same tile (2 replicas). Read against
the device mesh ``data=4 x model=2`` it says "dim 0 over data (4), replicated x2 over model".
Which mesh axes a tile dimension runs along is found from the devices themselves: walking one
step along the tile dimension, the mesh coordinates that change are its axes (several are
listed in mesh order, ``(data,model)=8``; a tile
dimension is named only when the sizes of those axes multiply to its own size; a split of one
axis over two tile dimensions keeps "over 4 devices"). ``{replicated}`` is a whole copy on
every device, ``{maximal device=0}`` the whole array on one, ``{manual}`` a value the user's
``shard_map`` body lays out itself.

**Where the sharding comes from.** After partitioning, the optimized module keeps the
parameters' shardings and their per-device shapes; the output's sharding is usually gone
(XLA keeps it outside the text), so an output's is read, in order, from the optimized root,
from the module before optimizations, or from the shapes alone: the global shape before
optimizations divided by the per-device shape after it gives each dimension's split
(``sharding_source`` says which). The module before optimizations also gives the exact
global shapes (the per-device shape times the tiles pads a dimension that does not divide)
and, from Shardy's ``xla.sdy.meshes``, the mesh axis names the user chose.

**Large and replicated.** An array is flagged when it is fully replicated on a multi-device
module, at least :data:`LARGE_BYTES` on each device, and at least :data:`LARGE_FRACTION` of
all the parameters' bytes per device (so a small model's every weight is not listed).
Sharded over all ``n`` devices it would take ``1/n`` of the memory; and a replicated
parameter's gradient is summed with an all-reduce, which moves ``2(n-1)/n`` of it per device
on a ring, where a reduce-scatter to a sharded gradient moves ``(n-1)/n``.

**Resharding.** An ``all-gather``, ``all-to-all`` or ``collective-permute`` that the SPMD
partitioner inserted (not one the user wrote in ``shard_map``: its op name does not end in
a collective primitive) moves a value from one sharding to another. :func:`producer_of` and
:func:`consumers_of` find the ops on either side, walking through what only moves or
relabels data (copies, bitcasts, slices, transposes, tuples, other resharding collectives,
and fusions made only of those, entering a fusion to find the op that computes inside it),
so the sentence "this line's output sharding costs an all-gather of 64 MiB per step" can
name the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ...hlo.attributes.sharding import Sharding, decode_sharding
from ...hlo.errors import DecodeError
from ...hlo.model import Instruction, Module
from ...hlo.shape import Shape
from ...json_fields import json_fields
from ._endpoints import Memo, producer_of
from ._groups import DeviceMesh, _sharding_text

__all__ = [
    "ArraySharding",
    "LARGE_BYTES",
    "LARGE_FRACTION",
    "ReplicatedLarge",
    "Role",
    "ShardingSource",
    "named_mesh",
    "outputs_of",
    "parameters_of",
    "per_device_dims",
    "replicated_large",
    "sharding_words",
    "tile_axes",
]

#: A replicated array under this many bytes per device is not worth a flag.
LARGE_BYTES = 1 << 20
#: ... nor one under this fraction of all the parameters' bytes per device.
LARGE_FRACTION = 0.01


class Role(StrEnum):
    PARAMETER = "parameter"
    OUTPUT = "output"


class ShardingSource(StrEnum):
    """Where an array's sharding was read (see the module doc)."""

    WRITTEN = "written"  # on the instruction in the optimized module
    BEFORE = "before"  # on the same value in the module before optimizations
    SHAPES = "shapes"  # global shape before / per-device shape after: the splits only
    NONE = "none"  # nowhere


# --- the mesh and its names -----------------------------------------------------------------

# `xla.sdy.meshes={mesh = #sdy.mesh<["data"=4, "model"=2]>}` in the module's frontend
# attributes (Shardy); a mesh with explicit `device_ids` is not row-major and is left out.
_SDY_MESH = re.compile(r"#sdy\.mesh<\[([^\]]*)\]\s*(,[^>]*)?>")
_SDY_AXIS = re.compile(r"""\\?["']([^"'\\]+)\\?["']\s*=\s*(\d+)""")


def named_mesh(module: Module | None, devices: int) -> DeviceMesh | None:
    """The mesh named in ``module``'s Shardy attributes whose size is ``devices``."""
    if module is None:
        return None
    attrs = module.header_attrs.get("frontend_attributes")
    text = str(attrs.get("xla.sdy.meshes", "")) if isinstance(attrs, dict) else ""
    for found in _SDY_MESH.finditer(text):
        if found.group(2) and "device_ids" in found.group(2):
            continue
        axes = _SDY_AXIS.findall(found.group(1))
        mesh = DeviceMesh(tuple(n for n, _ in axes), tuple(int(s) for _, s in axes))
        if axes and mesh.size == devices:
            return mesh
    return None


def tile_axes(sharding: Sharding, mesh: DeviceMesh | None) -> list[tuple[str, ...] | None]:
    """For each tile dimension of a tiled ``sharding``, the mesh axes it runs along, or
    ``None`` where they cannot be named (see the module doc)."""
    dims = sharding.tile_dims
    if mesh is None or not sharding.is_tiled or any(d >= mesh.size for d in sharding.devices):
        return [None] * len(dims)
    strides = [1] * len(dims)
    for k in range(len(dims) - 2, -1, -1):
        strides[k] = strides[k + 1] * dims[k + 1]
    coords = [mesh.coordinates(d) for d in sharding.devices]
    axes: list[set[int]] = [set() for _ in dims]
    for p in range(len(coords)):
        for k, size in enumerate(dims):
            if (p // strides[k]) % size + 1 < size:
                a, b = coords[p], coords[p + strides[k]]
                axes[k].update(i for i in range(len(a)) if a[i] != b[i])
    out: list[tuple[str, ...] | None] = []
    for k, size in enumerate(dims):
        product = 1
        for i in axes[k]:
            product *= mesh.shape[i]
        taken = any(axes[k] & axes[j] for j in range(len(dims)) if j != k)
        named = product == size and not taken
        out.append(tuple(mesh.names[i] for i in sorted(axes[k])) if named else None)
    return out


# --- sharding in words ----------------------------------------------------------------------


def sharding_words(sharding: Sharding | None, mesh: DeviceMesh | None = None) -> str:
    """``{devices=[4,2]<=[8]}`` -> ``dim 0 over 4 devices, dim 1 over 2 devices`` (with the
    mesh's names when ``mesh`` gives them: ``dim 0 over data=4, dim 1 over model=2``)."""
    if sharding is None:
        return "not written"
    kind = sharding.kind
    if kind == "tuple":
        parts = [f"{i}: {sharding_words(e, mesh)}" for i, e in enumerate(sharding.elements)]
        return "tuple (" + "; ".join(parts) + ")"
    if kind == "replicated":
        return "replicated"
    if kind == "maximal":
        return f"all on device {sharding.device}"
    if kind == "manual":
        return "manual (laid out by a shard_map body)"
    if kind == "unknown":
        return "unknown (left to the partitioner)"
    if kind == "unreduced":
        return "unreduced (partial sums on each device)"
    if kind != "tiled":
        return sharding.raw or kind
    return _tiled_words(sharding, mesh)


def _tiled_words(sharding: Sharding, mesh: DeviceMesh | None) -> str:
    dims = sharding.tile_dims
    named = tile_axes(sharding, mesh)
    # The trailing subgroup dimensions: one `last_tile_dim_replicate`, or `last_tile_dims`.
    kinds = list(sharding.last_tile_dims)
    if sharding.last_tile_dim_replicate:
        kinds = ["replicated"]
    data = len(dims) - len(kinds)
    parts = []
    for k in range(data):
        if dims[k] > 1:
            parts.append(f"dim {k} over {_over(dims[k], named[k])}")
    for k, what in zip(range(data, len(dims)), kinds):
        if dims[k] > 1:
            axes = named[k]
            parts.append(f"{what} x{dims[k]}" + (f" over {','.join(axes)}" if axes else ""))
    return ", ".join(parts) or "replicated"


def _over(size: int, axes: tuple[str, ...] | None) -> str:
    if not axes:
        return f"{size} devices"
    # Several axes (listed in mesh order) in one tile dimension: `(data,model)=8`.
    return (axes[0] if len(axes) == 1 else "(" + ",".join(axes) + ")") + f"={size}"


def _split_words(splits: list[int], devices: int, mesh: DeviceMesh | None) -> str:
    """The words for splits read from shapes alone. The device order is not known, so a
    split is given a mesh axis only when the mesh has one axis of that size and no other
    axis shares its size (a guess the ``(from shapes)`` mark owns up to)."""
    sizes = list(mesh.shape) if mesh is not None else []
    unique = len(set(sizes)) == len(sizes)
    parts = []
    for k, s in enumerate(splits):
        if s <= 1:
            continue
        if unique and mesh is not None and s in sizes:
            parts.append(f"dim {k} over {mesh.names[sizes.index(s)]}={s}")
        else:
            parts.append(f"dim {k} split {s} ways")
    tiles = 1
    for s in splits:
        tiles *= s
    if tiles == 1:
        return "replicated (from shapes)"
    if devices > tiles and devices % tiles == 0:
        parts.append(f"replicated x{devices // tiles}")
    return ", ".join(parts) + " (from shapes)"


def per_device_dims(dims: tuple[int, ...], sharding: Sharding) -> tuple[int, ...]:
    """The shape of one device's tile of an array of ``dims`` (rounded up, as XLA pads)."""
    if not sharding.is_tiled:
        return tuple(dims)
    tiles = sharding.tile_dims
    return tuple(-(-d // tiles[k]) if k < len(tiles) else d for k, d in enumerate(dims))


# --- parameters and outputs -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ArraySharding:
    """An entry parameter or output after partitioning: its global ``shape``, the
    ``sharding`` it was split by (HLO text) and in words (``mesh_text``), and what one device
    holds (``per_device_shape``, ``per_device_bytes``). ``source`` is the user's line that
    computes an output (parameters have ``op_name``, JAX's argument name, instead)."""

    name: str
    shape: str
    sharding: str
    per_device_shape: str
    per_device_bytes: int
    replicated: bool
    role: Role = Role.PARAMETER
    op_name: str = ""
    mesh_text: str = ""
    sharding_source: ShardingSource = ShardingSource.WRITTEN
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        return json_fields(
            self,
            "name shape sharding per_device_shape per_device_bytes replicated role op_name "
            "mesh_text sharding_source source",
        )


class _Shardings:
    """The shardings of one module's parameters and outputs, each distinct text read once.

    An SPMD module's thousands of entry parameters hold a handful of sharding texts, and
    splitting each parameter's attributes to decode its own copy cost more than the rest of
    the sharding view. The text is found as the mesh inference finds it
    (:func:`._groups._sharding_text`); text that quick read is unsure of, or that the decoder
    refuses, goes through the instruction's attribute mapping (whose error says where in the
    file it is). Each sharding's words are made once per mesh too.
    """

    __slots__ = ("mesh", "_decoded", "_words")

    def __init__(self, mesh: DeviceMesh | None) -> None:
        self.mesh = mesh
        self._decoded: dict[str, Sharding | None] = {}
        self._words: dict[str, str] = {}

    def of(self, inst: Instruction | None) -> Sharding | None:
        """The ``sharding=`` attribute of ``inst`` (``None`` when it has none)."""
        if inst is None or "sharding=" not in inst.attr_text:
            return None
        raw = _sharding_text(inst.attr_text)
        if raw is None:
            return _checked(inst.attrs.get("sharding"))
        if raw in self._decoded:
            return self._decoded[raw]
        try:
            value = _checked(decode_sharding(raw, inst.opcode))
        except DecodeError:
            return _checked(inst.attrs.get("sharding"))  # raises, placed in the file
        self._decoded[raw] = value
        return value

    def text_and_words(self, sharding: Sharding) -> tuple[str, str]:
        """``sharding`` as HLO text and in words on this mesh (see :func:`sharding_words`)."""
        text = str(sharding)
        words = self._words.get(text)
        if words is None:
            # A root tuple's elements are decoded apart, but hold the same few shardings.
            words = self._words[text] = sharding_words(sharding, self.mesh)
        return text, words


def _checked(value: object) -> Sharding | None:
    return value if isinstance(value, Sharding) else None


def _array_bytes(shape: Shape) -> int:
    return sum(leaf.byte_size or 0 for leaf in shape.leaves() if leaf.is_array)


def _global_text(local: Shape, sharding: Sharding | None, before: Shape | None) -> str:
    if before is not None:
        return before.to_text(layout=False)
    if local.is_array and sharding is not None and sharding.is_tiled:
        tiles = sharding.tile_dims
        dims = [(d or 0) * (tiles[k] if k < len(tiles) else 1) for k, d in enumerate(local.dims)]
        return f"{local.dtype}[{','.join(map(str, dims))}]"
    return local.to_text(layout=False)


def _array(
    name: str,
    local: Shape,
    sharding: Sharding | None,
    before: Shape | None,
    shardings: _Shardings,
    devices: int,
    **fields: Any,
) -> ArraySharding:
    """One parameter or output; with no sharding, what the shapes alone say.

    With neither a sharding nor shapes to compare, a parameter is whole on every device (the
    partitioner's default for a parameter it was given no sharding for) and an output's
    layout is not known; on one device everything is whole.
    """
    source = fields.pop("sharding_source", ShardingSource.WRITTEN)
    splits = _splits(before, local) if sharding is None else None
    text = ""
    if sharding is not None:
        text, words = shardings.text_and_words(sharding)
        replicated = sharding.is_replicated
    elif devices <= 1:
        source, words, replicated = ShardingSource.NONE, "whole (one device)", True
    elif splits is not None:
        source = ShardingSource.SHAPES
        words = _split_words(splits, devices, shardings.mesh)
        replicated = all(s == 1 for s in splits)
    elif fields.get("role") is Role.PARAMETER:
        source, words, replicated = ShardingSource.NONE, "replicated (none written)", True
    else:
        source, words, replicated = ShardingSource.NONE, "not written", False
    return ArraySharding(
        name=name,
        shape=_global_text(local, sharding, before),
        sharding=text,
        per_device_shape=local.to_text(layout=False),
        per_device_bytes=_array_bytes(local),
        replicated=replicated,
        mesh_text=words,
        sharding_source=source,
        **fields,
    )


def _splits(before: Shape | None, local: Shape) -> list[int] | None:
    """Each dimension's split, global / per device, when both shapes are arrays that match."""
    if before is None or not (before.is_array and local.is_array) or before.rank != local.rank:
        return None
    out = []
    for g, d in zip(before.dims, local.dims):
        if g is None or not d or g % d:
            return None
        out.append(g // d)
    return out


def parameters_of(
    module: Module, before: Module | None, mesh: DeviceMesh | None, devices: int
) -> list[ArraySharding]:
    """The entry parameters of ``module`` (global shapes from ``before`` when given)."""
    entry = module.entry
    if entry is None:
        return []
    old = _parameters_by_number(before)
    shardings = _Shardings(mesh)
    out = []
    for param in entry.parameters:
        number = param.parameter_number
        prior = old.get(number) if number is not None else None
        sharding = shardings.of(param)
        if sharding is None and prior is not None:
            sharding = shardings.of(prior)
        before_shape = prior.shape if prior is not None and _same_rank(prior, param) else None
        out.append(
            _array(
                param.name,
                param.shape,
                sharding,
                before_shape,
                shardings,
                devices,
                role=Role.PARAMETER,
                op_name=param.op_name,
            )
        )
    return out


def _same_rank(a: Instruction, b: Instruction) -> bool:
    return a.shape.is_array == b.shape.is_array and a.shape.rank == b.shape.rank


def _parameters_by_number(module: Module | None) -> dict[int, Instruction]:
    entry = module.entry if module is not None else None
    if entry is None:
        return {}
    return {p.parameter_number: p for p in entry.parameters if p.parameter_number is not None}


def _elements(root: Instruction) -> list[tuple[Shape, Instruction | None]]:
    """The root's outputs: a tuple's elements (with the instruction making each), else itself."""
    shape = root.shape
    if not shape.is_tuple:
        return [(shape, root)]
    makers = root.operands if root.opcode == "tuple" else []
    return [(s, makers[i] if i < len(makers) else None) for i, s in enumerate(shape.tuple_shapes)]


def _element_sharding(sharding: Sharding | None, index: int) -> Sharding | None:
    """Element ``index``'s part of a root's ``sharding``."""
    if sharding is None:
        return None
    if sharding.is_tuple:
        return sharding.elements[index] if index < len(sharding.elements) else None
    # A tuple-shaped root with one non-tuple sharding applies it to every element.
    return sharding


def outputs_of(
    module: Module, before: Module | None, mesh: DeviceMesh | None, devices: int
) -> list[ArraySharding]:
    """The entry outputs of ``module``: the root, or each element of a root tuple."""
    entry = module.entry
    root = entry.root if entry is not None else None
    if root is None:
        return []
    old_root = before.entry.root if before is not None and before.entry is not None else None
    new = _elements(root)
    old = _elements(old_root) if old_root is not None else []
    if len(old) != len(new):
        old = []
    shardings = _Shardings(mesh)
    # Each root's read once (a root tuple's sharding lists every output's), the one before
    # optimizations only if an output needs it.
    written = shardings.of(root)
    prior_written: list[Sharding | None] = []
    memo = Memo()
    out = []
    for i, (local, maker) in enumerate(new):
        sharding, where = _element_sharding(written, i), ShardingSource.WRITTEN
        if sharding is None and old:
            if not prior_written:
                prior_written.append(shardings.of(old_root))
            sharding, where = _element_sharding(prior_written[0], i), ShardingSource.BEFORE
        prior = old[i][0] if old else None
        if prior is not None and (prior.is_array != local.is_array or prior.rank != local.rank):
            prior = None
        endpoint = producer_of(maker, memo) if maker is not None else None
        out.append(
            _array(
                "output" if len(new) == 1 else f"output {i}",
                local,
                sharding,
                prior,
                shardings,
                devices,
                role=Role.OUTPUT,
                op_name=endpoint.op_name if endpoint else "",
                sharding_source=where,
                source=endpoint.source if endpoint else "",
            )
        )
    return out


# --- replicated and large ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReplicatedLarge:
    """A large array held whole on every device (see the module doc for the threshold):
    ``saving_bytes`` per device if sharded over all ``devices``; for a parameter, the
    per-device bytes of summing its gradient with an all-reduce, and with a reduce-scatter
    instead (``None`` for an output, which has no gradient to sum)."""

    name: str
    role: Role
    op_name: str
    shape: str
    bytes: int
    devices: int
    saving_bytes: int
    all_reduce_bytes: int | None
    reduce_scatter_bytes: int | None

    def to_dict(self) -> dict[str, Any]:
        return json_fields(
            self,
            "name role op_name shape bytes devices saving_bytes all_reduce_bytes "
            "reduce_scatter_bytes",
        )


def replicated_large(arrays: list[ArraySharding], devices: int) -> list[ReplicatedLarge]:
    """The fully replicated arrays worth sharding, largest first."""
    if devices <= 1:
        return []
    params = sum(a.per_device_bytes for a in arrays if a.role is Role.PARAMETER)
    out = []
    for a in arrays:
        size = a.per_device_bytes
        if not a.replicated or size < LARGE_BYTES or size < LARGE_FRACTION * params:
            continue
        share = -(-size // devices)
        param = a.role is Role.PARAMETER
        out.append(
            ReplicatedLarge(
                name=a.name,
                role=a.role,
                op_name=a.op_name,
                shape=a.shape,
                bytes=size,
                devices=devices,
                saving_bytes=size - share,
                all_reduce_bytes=2 * (devices - 1) * size // devices if param else None,
                reduce_scatter_bytes=(devices - 1) * size // devices if param else None,
            )
        )
    out.sort(key=lambda r: -r.bytes)
    return out

"""Where values live: ``sharding=``, ``replica_groups=`` (explicit, iota and mesh-axes forms)
and ``source_target_pairs=``.

Device lists written in the compact iota form (``[4,2]<=[8]``) and mesh-axes replica groups
are expanded to explicit device ids, following XLA's own expansion rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .. import _lex
from ..errors import DecodeError
from ..metadata import Metadata
from ._grammar import ValueCursor, ints, parse_or_raise, with_index_comments
from ._values import decode_enum_list
from .metadata import format_metadata, metadata_at

__all__ = ["IotaTileAssignment", "Sharding", "ReplicaGroups"]


@dataclass(frozen=True, slots=True)
class IotaTileAssignment:
    """A device array written compactly as ``[dims]<=[reshape_dims]T(perm)``.

    Meaning: ``arange(prod(reshape_dims)).reshape(reshape_dims).transpose(perm).reshape(dims)``.
    """

    dims: tuple[int, ...]
    reshape_dims: tuple[int, ...]
    transpose_perm: tuple[int, ...] = ()

    def devices(self) -> tuple[int, ...]:
        """The device ids in row-major order of ``dims``."""
        flat = _transposed_offsets(self.reshape_dims, self.transpose_perm)
        if _prod(self.dims) != len(flat):
            raise ValueError(f"iota {self}: {self.dims} does not hold {len(flat)} devices")
        return tuple(flat)

    def __str__(self) -> str:
        text = f"[{ints(self.dims)}]<=[{ints(self.reshape_dims)}]"
        if self.transpose_perm:
            text += f"T({ints(self.transpose_perm)})"
        return text


def _prod(values) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def _transposed_offsets(dims, perm) -> list[int]:
    """Flat row-major offsets into an array of ``dims``, visited in the order of its transpose."""
    strides = [1] * len(dims)
    for i in range(len(dims) - 2, -1, -1):
        strides[i] = strides[i + 1] * dims[i + 1]
    order = perm if perm else range(len(dims))
    out = [0]
    for axis in order:
        size, stride = dims[axis], strides[axis]
        out = [base + i * stride for base in out for i in range(size)]
    return out


@dataclass(frozen=True, slots=True)
class Sharding:
    """An ``HloSharding``: how a value is split over devices.

    ``kind`` is one of ``replicated``, ``maximal`` (all on ``device``), ``manual``,
    ``unknown``, ``unreduced``, ``tiled`` (``devices=[tile_dims]...``), ``tuple`` (one sharding
    per element in ``elements``) or ``named`` (the newer mesh form, kept as ``raw`` text).
    For ``tiled``, ``devices`` is the tile assignment flattened in row-major order, with
    ``iota`` set when the text used the compact iota form; :meth:`tile_assignment` gives
    it as an array of shape ``tile_dims``. With ``last_tile_dim_replicate`` the last tile
    dimension lists replicas; ``last_tile_dims`` names the kind of each trailing subgroup
    dimension (``manual``, ``replicated``...).
    """

    kind: str
    device: int | None = None
    tile_dims: tuple[int, ...] = ()
    devices: tuple[int, ...] = ()
    iota: IotaTileAssignment | None = None
    last_tile_dim_replicate: bool = False
    last_tile_dims: tuple[str, ...] = ()
    shard_as: int | None = None
    shard_like: int | None = None
    metadata: tuple[Metadata, ...] = ()
    elements: tuple[Sharding, ...] = ()
    raw: str | None = None

    @property
    def is_tuple(self) -> bool:
        return self.kind == "tuple"

    @property
    def is_replicated(self) -> bool:
        if self.kind == "tuple":
            return all(e.is_replicated for e in self.elements)
        return self.kind == "replicated"

    @property
    def is_tiled(self) -> bool:
        return self.kind == "tiled"

    @property
    def num_tiles(self) -> int:
        """Number of distinct data tiles (replication dimensions not counted)."""
        if self.kind != "tiled":
            return 1
        dims = self.tile_dims
        if self.last_tile_dim_replicate:
            dims = dims[:-1]
        elif self.last_tile_dims:
            dims = dims[: len(dims) - len(self.last_tile_dims)]
        return _prod(dims)

    def tile_assignment(self):
        """The device ids as a numpy array of shape ``tile_dims`` (tiled shardings only)."""
        import numpy as np

        return np.array(self.devices, dtype=np.int64).reshape(self.tile_dims)

    def __str__(self) -> str:
        if self.kind == "tuple":
            return "{" + with_index_comments([str(e) for e in self.elements]) + "}"
        if self.kind == "named" and self.raw is not None:
            return self.raw
        parts = []
        if self.kind == "maximal":
            parts.append(f"maximal device={self.device}")
        elif self.kind == "tiled":
            if self.iota is not None:
                parts.append(f"devices={self.iota}")
            else:
                parts.append(f"devices=[{ints(self.tile_dims)}]{ints(self.devices)}")
        else:
            parts.append(self.kind)
        if self.last_tile_dim_replicate:
            parts.append("last_tile_dim_replicate")
        if self.last_tile_dims:
            parts.append("last_tile_dims={" + ", ".join(self.last_tile_dims) + "}")
        if self.shard_as is not None:
            parts.append(f"shard_as {self.shard_as}")
        if self.shard_like is not None:
            parts.append(f"shard_like {self.shard_like}")
        if len(self.metadata) == 1:
            parts.append("metadata=" + format_metadata(self.metadata[0]))
        elif self.metadata:
            parts.append("metadata={" + ", ".join(map(format_metadata, self.metadata)) + "}")
        return "{" + " ".join(parts) + "}"


@dataclass(frozen=True, slots=True)
class ReplicaGroups:
    """``replica_groups=``: which devices take part together in a collective.

    ``groups`` is always the explicit list of device-id groups: the iota form
    ``[2,4]<=[8]`` (kept in ``iota``) and the mesh-axes form
    ``mesh['x'=4,'y'=2] {'x'}`` (kept as text in ``mesh``) are expanded.
    ``groups`` is ``None`` only for a mesh form this version cannot expand.
    """

    groups: tuple[tuple[int, ...], ...] | None
    iota: IotaTileAssignment | None = None
    mesh: str | None = None

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return iter(self.groups or ())

    def __len__(self) -> int:
        return len(self.groups or ())

    def __getitem__(self, index: int) -> tuple[int, ...]:
        return (self.groups or ())[index]

    @property
    def group_size(self) -> int | None:
        return len(self.groups[0]) if self.groups else None

    def __str__(self) -> str:
        if self.mesh is not None:
            return self.mesh
        if self.iota is not None:
            return str(self.iota)
        return "{" + ",".join("{" + ints(g) + "}" for g in self.groups or ()) + "}"


# --- sharding -----------------------------------------------------------------------------


def _iota_at(c: ValueCursor, dims: tuple[int, ...]) -> IotaTileAssignment:
    """After ``[dims]``: read ``<=[reshape]T(perm)``."""
    if any(d <= 0 for d in dims):
        raise c.error(f"iota dimensions must be positive, got {list(dims)}")
    c.expect("<=")
    reshape = c.int_list("[", "]")
    if any(d <= 0 for d in reshape):
        raise c.error(f"iota dimensions must be positive, got {list(reshape)}")
    perm: tuple[int, ...] = ()
    if c.accept("T"):
        perm = c.int_list("(", ")")
        if sorted(perm) != list(range(len(reshape))):
            raise c.error(f"T{perm} is not a permutation of {len(reshape)} dimensions")
    iota = IotaTileAssignment(dims, reshape, perm)
    if _prod(dims) != _prod(reshape):
        raise c.error(
            f"iota {iota} has {_prod(reshape)} devices but {list(dims)} needs {_prod(dims)}"
        )
    return iota


def _sharding_at(c: ValueCursor) -> Sharding:
    start = c.skip()
    c.expect("{")
    nxt = c.peek()
    if nxt in ("{", "}"):
        c.pos = start  # a tuple: `{ {elem}, {elem} }`
        return Sharding("tuple", elements=tuple(c.comma_list("{", "}", lambda: _sharding_at(c))))
    if c.at("mesh") or c.at("maximal_mesh") or nxt in ("[", "@"):
        # The newer named (mesh) form; keep it as text.
        c.pos = start
        return Sharding("named", raw=c.balanced())
    kind: str | None = None
    fields: dict[str, Any] = {}
    while not c.accept("}"):
        word_at = c.skip()
        word = c.ident()
        if word in ("replicated", "manual", "unknown", "unreduced"):
            kind = word
        elif word in ("maximal", "maximul"):
            kind = "maximal"
            c.expect("device")
            c.expect("=")
            fields["device"] = c.int()
        elif word == "devices":
            kind = "tiled"
            fields.update(_tiled_devices_at(c, word_at))
        elif word == "last_tile_dim_replicate":
            fields["last_tile_dim_replicate"] = True
        elif word == "last_tile_dims":
            c.expect("=")
            fields["last_tile_dims"] = decode_enum_list(c.balanced(), None)
        elif word in ("shard_as", "shard_like"):
            fields[word] = c.int()
        elif word == "metadata":
            c.expect("=")
            fields["metadata"] = _sharding_metadata(c)
        else:
            raise DecodeError(f"unknown sharding keyword {word!r}", word_at)
    if kind is None:
        raise DecodeError("sharding has no type (replicated, maximal, devices=...)", start)
    return Sharding(kind, **fields)


def _tiled_devices_at(c: ValueCursor, word_at: int) -> dict[str, Any]:
    """The fields of ``devices=[dims]ids`` or ``devices=[dims]<=[reshape]T(perm)`` (an iota
    list), read after the ``devices`` keyword at ``word_at``."""
    c.expect("=")
    dims = c.int_list("[", "]")
    if c.at("<="):
        iota = _iota_at(c, dims)
        return {"iota": iota, "devices": iota.devices(), "tile_dims": dims}
    devices = [c.int()]
    while c.accept(","):
        devices.append(c.int())
    if len(devices) != _prod(dims):
        raise DecodeError(
            f"devices=[{ints(dims)}] needs {_prod(dims)} device ids, found {len(devices)}",
            word_at,
        )
    return {"devices": tuple(devices), "tile_dims": dims}


def _sharding_metadata(c: ValueCursor) -> tuple[Metadata, ...]:
    pos = c.skip()
    after = _lex.skip_ws(c.text, pos + 1)
    if c.text.startswith("{", pos) and c.text.startswith("{", after):

        def one() -> Metadata:
            md, c.pos = metadata_at(c.text, c.skip())
            return md

        return tuple(c.comma_list("{", "}", one))
    if c.text.startswith("{", pos) and c.text.startswith("}", after):
        c.pos = after + 1
        return ()
    md, c.pos = metadata_at(c.text, pos)
    return (md,)


def decode_sharding(raw: str, opcode: str | None) -> Sharding:
    return parse_or_raise(_sharding_at, raw)


# --- replica groups -----------------------------------------------------------------------


def _groups_list(c: ValueCursor) -> tuple[tuple[int, ...], ...]:
    return tuple(c.comma_list("{", "}", c.int_list))


def decode_replica_groups(raw: str, opcode: str | None) -> ReplicaGroups:
    if raw.startswith("{"):
        return ReplicaGroups(parse_or_raise(_groups_list, raw))
    if raw.startswith("["):

        def parse(c: ValueCursor) -> ReplicaGroups:
            dims = c.int_list("[", "]")
            if len(dims) != 2:
                raise DecodeError("iota replica groups need [num_groups,group_size]", 0)
            iota = _iota_at(c, dims)
            flat = iota.devices()
            size = dims[1]
            groups = tuple(tuple(flat[i : i + size]) for i in range(0, len(flat), size))
            return ReplicaGroups(groups, iota=iota)

        return parse_or_raise(parse, raw)
    if raw.startswith(("mesh", "maximal_mesh")):
        return ReplicaGroups(_mesh_groups(raw), mesh=raw)
    raise DecodeError("expected {{...}}, [n,m]<=[...] or mesh[...] replica groups", 0)


_AXIS_NAME = re.compile(
    _lex.quoted("'", capture=True) + "|" + _lex.quoted('"', capture=True) + "|(" + _lex.NAME + ")",
    re.S,
)


def _axis_name(c: ValueCursor) -> str:
    m = _AXIS_NAME.match(c.text, c.skip())
    if m is None:
        raise c.error("expected a mesh axis name")
    c.pos = m.end()
    return next(g for g in m.groups() if g is not None)


def _mesh_groups(raw: str) -> tuple[tuple[int, ...], ...] | None:
    """Expand ``mesh['x'=4,'y'=2][, device_ids=(...)] {'x'}`` into explicit groups.

    Follows ``MeshAxesReplicaGroupList::flattened_replica_groups``: reshape the mesh's device
    array so every referenced (sub-)axis is its own dimension, move the grouped axes last (in
    the order listed) and cut the result into groups. Returns ``None`` for forms it does not
    know (e.g. ``maximal_mesh``), which the caller keeps as text.
    """
    c = ValueCursor(raw)
    if not c.at("mesh["):
        return None
    c.accept("mesh")

    def axis() -> tuple[str, int]:
        name = _axis_name(c)
        c.expect("=")
        return name, c.int()

    mesh_axes = c.comma_list("[", "]", axis)
    names = [name for name, _ in mesh_axes]
    sizes = [size for _, size in mesh_axes]
    if any(size <= 0 for size in sizes):
        raise DecodeError("mesh axis sizes must be positive", 0)
    total = _prod(sizes)
    devices = _mesh_device_ids(c, total) if c.accept(",") else list(range(total))
    axes = c.comma_list("{", "}", lambda: _grouped_axis(c, names, sizes))
    c.done()
    return _group_mesh_axes(sizes, devices, axes)


def _mesh_device_ids(c: ValueCursor, total: int) -> list[int]:
    """The mesh's devices in order, from ``device_ids=(...)`` (a list, ``[dims]T(perm)`` or
    an iota ``[dims]<=[reshape]``), read after the comma that follows the axes."""
    c.expect("device_ids")
    c.expect("=")
    c.expect("(")
    if c.at("["):
        dims = c.int_list("[", "]")
        if c.at("<="):
            devices = list(_iota_at(c, dims).devices())
        else:
            perm = c.int_list("(", ")") if c.accept("T") else ()
            devices = _transposed_offsets(dims, perm)
    else:
        devices = [c.int()]
        while c.accept(","):
            devices.append(c.int())
    c.expect(")")
    if len(devices) != total:
        raise c.error(f"mesh has {total} devices but device_ids lists {len(devices)}")
    return devices


def _grouped_axis(
    c: ValueCursor, names: list[str], sizes: list[int]
) -> tuple[int, tuple[int, int] | None]:
    """One axis a group runs along: ``'x'`` or the sub-axis ``'x':(pre)size``, as the axis's
    index and ``(pre, size)`` (None for the whole axis)."""
    name_at = c.skip()
    name = _axis_name(c)
    if name not in names:
        raise DecodeError(f"unknown mesh axis {name!r}", name_at)
    sub = None
    if c.accept(":"):
        c.expect("(")
        pre = c.int()
        c.expect(")")
        size = c.int()
        full = sizes[names.index(name)]
        if pre < 1 or size < 2 or full % (pre * size):
            raise DecodeError(f"bad sub-axis {name}:({pre}){size} of a size-{full} axis", name_at)
        sub = (pre, size)
    return names.index(name), sub


def _group_mesh_axes(
    sizes: list[int], devices: list[int], axes: list[tuple[int, tuple[int, int] | None]]
) -> tuple[tuple[int, ...], ...]:
    by_dim: dict[int, list[tuple[int, int] | None]] = {}
    for dim, sub in axes:
        by_dim.setdefault(dim, []).append(sub)
    reshape_of: dict[int, tuple[list[int], list[int]]] = {}
    for dim, subs in by_dim.items():
        full = sizes[dim]
        if len(subs) == 1:
            sub = subs[0]
            if sub is None:
                reshape_of[dim] = ([full], [0])
            else:
                pre, size = sub
                reshape_of[dim] = ([pre, size, full // (pre * size)], [1])
            continue
        reshape_of[dim] = _split_by_sub_axes(full, subs)
    new_sizes: list[int] = []
    offsets: list[int] = []
    for dim, size in enumerate(sizes):
        offsets.append(len(new_sizes))
        new_sizes.extend(reshape_of[dim][0] if dim in reshape_of else [size])
    grouped: list[int] = []
    consumed: dict[int, int] = {}
    for dim, _ in axes:
        k = consumed.get(dim, 0)
        consumed[dim] = k + 1
        grouped.append(reshape_of[dim][1][k] + offsets[dim])
    perm = [i for i in range(len(new_sizes)) if i not in grouped] + grouped
    order = _transposed_offsets(new_sizes, perm)
    group_size = _prod(new_sizes[i] for i in grouped)
    flat = [devices[i] for i in order]
    return tuple(tuple(flat[i : i + group_size]) for i in range(0, len(flat), group_size))


def _split_by_sub_axes(
    full: int, subs: list[tuple[int, int] | None]
) -> tuple[list[int], list[int]]:
    """A size-``full`` axis that several sub-axes ``(pre, size)`` of it are grouped along:
    the sizes it reshapes into (each sub-axis its own dimension, the gaps between them too)
    and, for each sub-axis in the order given, the index of its dimension."""
    parts = [s for s in subs if s is not None]
    if len(parts) != len(subs):
        raise DecodeError("a full mesh axis cannot be combined with its sub-axes", 0)
    order = sorted(range(len(parts)), key=lambda i: parts[i][0])
    reshape: list[int] = []
    aggregate = [0] * len(parts)
    prefix = 1
    for i in order:
        pre, size = parts[i]
        if pre % prefix:
            raise DecodeError("overlapping sub-axes in mesh replica groups", 0)
        if pre != prefix:
            reshape.append(pre // prefix)
            prefix *= pre // prefix
        reshape.append(size)
        aggregate[i] = len(reshape) - 1
        prefix *= size
    if prefix != full:
        reshape.append(full // prefix)
    return reshape, aggregate


def decode_source_target_pairs(raw: str, opcode: str | None) -> tuple[tuple[int, int], ...]:
    groups = parse_or_raise(_groups_list, raw)
    for pair in groups:
        if len(pair) != 2:
            raise DecodeError(f"source_target_pairs entry {pair} is not a pair", 0)
    return groups

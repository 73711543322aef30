"""An HLO sharding as the ``PartitionSpec`` a JAX user writes: ``{devices=[1,2,1,2]<=[4]
last_tile_dim_replicate}`` on the mesh ``x=2, y=2`` is ``P(None, 'x', None)``.

**The mesh in HLO.** JAX compiles a function over a mesh with the mesh's devices, in
``mesh.devices.flat`` order, as the compile's device assignment, so an SPMD module's device
ids are places in the mesh: device ``d`` sits at ``unravel_index(d, mesh_shape)`` whatever the
physical devices are (JAX's ``named_sharding_to_xla_hlo_sharding`` builds every tile assignment
as ``iota(mesh_shape)`` transposed). A tile dimension of a sharding then runs along the mesh
axes whose coordinates make its tile index, major first: the spec's tuple for that dimension.

**The conversion.** For each array dimension, the ordered mesh axes whose sizes multiply to its
tile count are tried (axes of one device are never needed), and the trailing subgroup
dimensions (``last_tile_dim_replicate``, ``last_tile_dims={replicated|manual|unreduced}``) take
the axes left; a candidate is kept only when every device holds the same tile under it as
under the sharding (the replicated axes' order within their subgroup does not matter). Explicit
device lists and iota ones are read alike (the decoder expands both). ``{replicated}`` is
``P()``; a sharding no named-axis spec gives (a device order the mesh does not have, an axis
split over two dimensions, ``{maximal device=N}``, a mesh not known) has no spec: ``None``,
and :func:`sharding_words` keeps XLA's notation for it, saying why.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations

from .attributes.sharding import Sharding, decode_sharding
from .errors import DecodeError

__all__ = ["Spec", "mesh_words", "partition_spec", "spec_of", "sharding_words"]

#: The mesh a spec names: its axes, major first, and their sizes.
MeshAxes = Sequence[tuple[str, int]]
#: Subgroup kinds whose devices' order inside the subgroup does not change what they hold.
_UNORDERED = frozenset({"replicated", "unreduced"})


@dataclass(frozen=True, slots=True)
class Spec:
    """A ``PartitionSpec``: per array dimension the mesh axes it is split over (major first;
    ``()``: whole), the axes a ``shard_map`` body holds by hand (``manual``) and those holding
    partial sums (``unreduced``, JAX's ``P(..., unreduced={...})``)."""

    dims: tuple[tuple[str, ...], ...]
    manual: tuple[str, ...] = ()
    unreduced: tuple[str, ...] = ()

    def __str__(self) -> str:
        parts = [_entry(axes) for axes in self.dims]
        if self.unreduced:
            parts.append("unreduced={" + ", ".join(map(repr, self.unreduced)) + "}")
        return f"P({', '.join(parts)})"


def _entry(axes: tuple[str, ...]) -> str:
    if not axes:
        return "None"
    return repr(axes[0]) if len(axes) == 1 else "(" + ", ".join(map(repr, axes)) + ")"


def mesh_words(mesh: MeshAxes) -> str:
    """``x=2, y=2``."""
    return ", ".join(f"{name}={size}" for name, size in mesh)


def partition_spec(sharding: Sharding, mesh: MeshAxes) -> Spec | None:
    """The spec of one (not a tuple) ``sharding`` on ``mesh`` (see the module doc); ``None``
    where no spec over ``mesh``'s named axes gives it, or it is not one array's."""
    if sharding.kind == "replicated":
        return Spec(())
    total = _prod(size for _, size in mesh)
    if not mesh or sharding.kind not in ("tiled", "manual", "unreduced"):
        return None
    named = tuple(name for name, size in mesh if size > 1)
    if sharding.kind == "manual":
        return Spec((), manual=named) if named else None
    if sharding.kind == "unreduced":
        return Spec((), unreduced=named) if named else None
    if sorted(sharding.devices) != list(range(total)):
        return None  # over other devices than the mesh's
    kinds = ("replicated",) if sharding.last_tile_dim_replicate else sharding.last_tile_dims
    rank = len(sharding.tile_dims) - len(kinds)
    for dims in _splits(sharding.tile_dims[:rank], mesh):
        used = {axis for axes in dims for axis in axes}
        for groups in _subgroups(sharding.tile_dims[rank:], mesh, used):
            if _same_tiles(sharding, mesh, dims, groups, kinds):
                by_kind = dict(zip(kinds, groups, strict=True))
                return Spec(dims, by_kind.get("manual", ()), by_kind.get("unreduced", ()))
    return None


def _splits(counts: Sequence[int], mesh: MeshAxes) -> Iterator[tuple[tuple[str, ...], ...]]:
    """Each way to give every array dimension ordered mesh axes, unused by the others, whose
    sizes multiply to its tile count."""
    sizes = dict(mesh)

    def ways(k: int, free: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], ...]]:
        if k == len(counts):
            yield ()
            return
        for axes in _ordered_products(free, sizes, counts[k]):
            rest = tuple(a for a in free if a not in axes)
            for tail in ways(k + 1, rest):
                yield (axes, *tail)

    yield from ways(0, tuple(name for name, size in mesh if size > 1))


def _ordered_products(
    free: tuple[str, ...], sizes: Mapping[str, int], count: int
) -> Iterator[tuple[str, ...]]:
    """The ordered tuples of ``free`` axes whose sizes multiply to ``count``."""
    if count == 1:
        yield ()
        return
    for n in range(1, len(free) + 1):
        for axes in permutations(free, n):
            if _prod(sizes[a] for a in axes) == count:
                yield axes


def _subgroups(
    counts: Sequence[int], mesh: MeshAxes, used: set[str]
) -> Iterator[list[tuple[str, ...]]]:
    """Each way to share the axes left by the array's dimensions (``used``) out over the
    subgroup dimensions whose sizes multiply to their counts, each group in the mesh's order
    (JAX's)."""
    left = [(name, size) for name, size in mesh if size > 1 and name not in used]
    if len(counts) <= 1:
        if _prod(size for _, size in left) == (counts[0] if counts else 1):
            yield [tuple(name for name, _ in left)][: len(counts)]
        return
    for n in range(len(left) + 1):
        for chosen in combinations(left, n):
            if _prod(size for _, size in chosen) == counts[0]:
                for tail in _subgroups(counts[1:], left, {name for name, _ in chosen}):
                    yield [tuple(name for name, _ in chosen), *tail]


def _same_tiles(
    sharding: Sharding,
    mesh: MeshAxes,
    dims: tuple[tuple[str, ...], ...],
    groups: Sequence[tuple[str, ...]],
    kinds: Sequence[str],
) -> bool:
    """Whether each device holds, under ``dims`` and ``groups`` on ``mesh``, the tile it holds
    under ``sharding`` (its place in an unordered subgroup left out)."""
    shape = sharding.tile_dims
    ordered = [*dims, *(axes for axes, kind in zip(groups, kinds, strict=True))]
    keep = [True] * len(dims) + [kind not in _UNORDERED for kind in kinds]
    names = [name for name, _ in mesh]
    sizes = [size for _, size in mesh]
    strides = [_prod(shape[k + 1 :]) for k in range(len(shape))]
    for place, device in enumerate(sharding.devices):
        coords = _unravel(device, sizes)
        for k, axes in enumerate(ordered):
            if not keep[k]:
                continue
            index = 0
            for axis in axes:
                i = names.index(axis)
                index = index * sizes[i] + coords[i]
            if index != (place // strides[k]) % shape[k]:
                return False
    return True


def _unravel(device: int, sizes: Sequence[int]) -> list[int]:
    out = []
    for size in reversed(sizes):
        out.append(device % size)
        device //= size
    return out[::-1]


def _prod(values: Iterator[int] | Sequence[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def spec_of(sharding: Sharding, mesh: MeshAxes) -> str | None:
    """The ``P(...)`` of ``sharding`` on ``mesh`` as text, a tuple's as ``(P(...), ...)``;
    ``None`` where no spec (or, for a tuple, an element) has one, or where an axis is held
    by hand (``manual``: inside a ``shard_map``, where :func:`sharding_words` says it)."""
    if sharding.is_tuple:
        specs = [spec_of(e, mesh) for e in sharding.elements]
        if any(s is None for s in specs):
            return None
        return "(" + ", ".join(s for s in specs if s is not None) + ")"
    spec = partition_spec(sharding, mesh)
    # Axes held by hand are the shard_map's, not the spec's: no P(...) alone gives them.
    return None if spec is None or spec.manual else str(spec)


def sharding_words(text: str, mesh: MeshAxes) -> str:
    """What a user reads for XLA's sharding ``text`` on ``mesh``: its spec, a tuple's per
    element, ``device N alone`` for a maximal one, ``manual`` one a ``shard_map`` body lays out;
    else XLA's notation, with why no spec gives it where the mesh is known."""
    try:
        sharding = decode_sharding(text, None)
    except DecodeError:
        return text
    return _words(sharding, text, mesh)


def _words(sharding: Sharding, text: str, mesh: MeshAxes) -> str:
    if sharding.is_tuple:
        return "(" + ", ".join(_words(e, str(e), mesh) for e in sharding.elements) + ")"
    if sharding.kind == "manual":
        return "manual (laid out by a shard_map body)"
    spec = partition_spec(sharding, mesh)
    if spec is not None:
        manual = ", manual over " + ", ".join(map(repr, spec.manual)) if spec.manual else ""
        return f"{spec}{manual}"
    if sharding.kind == "maximal":
        return f"device {sharding.device} alone"
    if not mesh or sharding.kind != "tiled":
        return text
    return f"{text} (no P(...) over the mesh {mesh_words(mesh)} gives it)"

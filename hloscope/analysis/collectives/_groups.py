"""Who talks to whom: a collective's device groups and the mesh axes they span.

``replica_groups`` comes decoded from the parser
(:class:`~hloscope.hlo.attributes.sharding.ReplicaGroups`): explicit lists ``{{0,1},{2,3}}``,
the iota form ``[2,4]<=[8]`` (2 groups of 4: ``arange(8).reshape(2,4)``, one group a row) with
an optional transpose ``[4,2]<=[2,4]T(1,0)``, and the mesh form
``mesh['x'=4,'y'=2] {'x'}``, all expanded to explicit device ids. An empty list ``{}`` means
every device in one group.

**The device mesh.** After SPMD partitioning the mesh's shape is still written in the
module's shardings: a sharding ``devices=[4,1,2]<=[4,2]T(1,0)`` names the mesh ``[4,2]`` in
its iota's reshape dimensions (JAX builds tile assignments from the mesh that way). The mesh
form of replica groups names the axes too (``'axis_0'=8``). :func:`infer_mesh` takes the
named form when there is one, else the iota reshape with the most dimensions (the full mesh,
not a flattened ``<=[8]``), else no mesh; axes of size one are left out. Devices sit in the
mesh in row-major order (``arange(n).reshape(mesh)``), so a group *spans* an axis when its
members' coordinates differ along it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ...hlo.attributes.sharding import decode_sharding
from ...hlo.errors import DecodeError
from ...hlo.model import Computation, Instruction, Module
from ...hlo.placement import kernel_computations

__all__ = ["DeviceMesh", "infer_mesh", "module_devices", "mesh_axes_of", "braced_value"]

_MESH_AXIS = re.compile(r"'([^']*)'\s*=\s*(\d+)")
# The `sharding=` attribute itself, not a frontend attribute ending in it (xla.sdy.sharding=).
_SHARDING_AT = re.compile(r"(?:^|[\s,])sharding=\{")
_ENDS = re.compile(r",|\s*$")


@dataclass(frozen=True, slots=True)
class DeviceMesh:
    """A mesh of devices: axis ``names`` and their ``shape``; devices in row-major order."""

    names: tuple[str, ...]
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        out = 1
        for d in self.shape:
            out *= d
        return out

    def coordinates(self, device: int) -> tuple[int, ...]:
        """Where ``device`` sits in the mesh (row-major)."""
        out = []
        for size in reversed(self.shape):
            out.append(device % size)
            device //= size
        return tuple(reversed(out))

    def to_dict(self) -> dict[str, object]:
        return {"axes": list(self.names), "shape": list(self.shape)}


def module_devices(module: Module) -> int:
    """How many devices the module runs on: ``num_partitions`` times ``replica_count``."""
    return _header_int(module, "num_partitions") * _header_int(module, "replica_count")


def _header_int(module: Module, name: str) -> int:
    """A number in the module's header, read from its text when it is written plainly: the
    header of a large SPMD module holds a layout of every parameter and output, and splitting
    it all to read one number costs a tenth of a second per 100k instructions."""
    text = module.header_attr_text
    if name + "=" not in text:
        return 1
    found = re.search(r"(?:^|[\s,])" + name + r"=(\d+)(?=,|\s*$)", text)
    if found is not None and '"' not in text[: found.start()]:
        return _int(found.group(1))
    return _int(module.header_attrs.get(name))


def _int(value: object) -> int:
    try:
        return max(int(str(value)), 1) if value is not None else 1
    except ValueError:  # an attribute this version does not read as a number: one device
        return 1


def infer_mesh(
    module: Module, computations: Iterable[Computation] | None = None
) -> DeviceMesh | None:
    """The device mesh the module's shardings and replica groups name (see the module doc).

    Only the ``computations`` that run as kernels are read (by default
    :func:`~hloscope.hlo.placement.kernel_computations`; :func:`find_collectives` passes the
    ones it walked): the shardings and collectives are there, and a fused body's shardings
    repeat its caller's. Building every fused body of a large module would cost more than its
    parse (the 54 MB module's 400k instructions are nearly all fused).
    """
    reshapes: list[tuple[int, ...]] = []
    tiles: list[tuple[int, ...]] = []
    decoded: dict[str, object] = {}
    if computations is None:
        computations = kernel_computations(module)
    for inst in (i for comp in computations for i in comp.instructions):
        text = inst.attr_text
        if "replica_groups=mesh" in text:
            groups = inst.attrs.get("replica_groups")
            axes = _MESH_AXIS.findall(str(groups.mesh).split("]")[0]) if groups else []
            # Axes of one device are dropped, as the iota path drops them: the partitioner
            # writes `'axis_0'=8,'axis_1'=1` for a mesh of eight along one axis.
            axes = [(n, s) for n, s in axes if int(s) > 1] or axes
            if axes:
                return DeviceMesh(tuple(n for n, _ in axes), tuple(int(s) for _, s in axes))
        if "sharding={" in text:
            raw = _sharding_text(text)
            if raw is None:  # text the quick read is unsure of: the attribute mapping's
                _collect(inst.attrs.get("sharding"), reshapes, tiles)
            elif raw not in decoded:  # a sharding seen before adds nothing new
                _collect(_decoded(raw, decoded, inst), reshapes, tiles)
    # The iota reshape is the mesh itself; tile dimensions only when no reshape says more
    # than a flat list (`devices=[2,4]<=[8]` is a [2,4] mesh written flat).
    best: tuple[int, ...] = ()
    for candidates in (reshapes, tiles):
        for dims in candidates:
            real = tuple(d for d in dims if d > 1)
            if len(real) > len(best):
                best = real
        if len(best) > 1:
            break
    if not best:
        return None
    return DeviceMesh(tuple(f"axis_{i}" for i in range(len(best))), best)


def _sharding_text(text: str) -> str | None:
    """The ``sharding={...}`` value in an instruction's attribute text, found without
    splitting the whole text: an SPMD module has a sharding on most kernel-level ops, nearly
    all alike, and splitting each op's attributes to read it cost more than the parse. A
    sharding holds no strings, so its closing brace is where the braces balance."""
    found = _SHARDING_AT.search(text)
    if found is None or '"' in text[: found.start()]:
        return None  # none, or after a string (metadata first?) that the match may be in
    return braced_value(text, found.end() - 1)


def braced_value(text: str, start: int) -> str | None:
    """The ``{...}`` value that opens at ``text[start]``, up to the brace that balances it,
    when an attribute's end (a comma or the text's end) follows; ``None`` otherwise (a value
    that holds strings, whose braces may not count, is the attribute mapping's to read)."""
    depth = 0
    for end in range(start, len(text)):
        char = text[end]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start : end + 1] if _ENDS.match(text, end + 1) else None
    return None


def _decoded(raw: str, memo: dict[str, object], inst: Instruction) -> object:
    """``raw`` decoded by the attribute decoder (and remembered in ``memo``). One it refuses
    goes through ``inst``'s attribute mapping, whose error says where in the file it is."""
    try:
        memo[raw] = decode_sharding(raw, None)
    except DecodeError:
        memo[raw] = inst.attrs.get("sharding")
    return memo[raw]


def _collect(sharding: object, reshapes: list, tiles: list) -> None:
    stack = [sharding] if sharding is not None else []
    while stack:
        s = stack.pop()
        stack.extend(getattr(s, "elements", ()))
        iota = getattr(s, "iota", None)
        if iota is not None:
            reshapes.append(tuple(iota.reshape_dims))
        if getattr(s, "kind", "") == "tiled":
            tiles.append(tuple(getattr(s, "tile_dims", ())))


def mesh_axes_of(
    groups: tuple[tuple[int, ...], ...], mesh: DeviceMesh | None, devices: int
) -> list[str] | None:
    """The mesh axes a collective's groups span (``None`` when there is no mesh to read, or
    the groups name devices outside it)."""
    if mesh is None or mesh.size != devices or not groups:
        return None
    spanned: set[int] = set()
    for group in groups:
        if any(d >= mesh.size for d in group):
            return None
        coords = [mesh.coordinates(d) for d in group]
        for axis in range(len(mesh.shape)):
            if len({c[axis] for c in coords}) > 1:
                spanned.add(axis)
    return [mesh.names[a] for a in sorted(spanned)]

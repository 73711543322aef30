"""Every collective of a module, found where it runs, with what it moves and between whom.

A collective is listed once: a sync op as itself, a start/done pair at its start (the done
is recorded for the overlap), an ``async-start`` at the start with the kind of the collective
its computation wraps (that computation itself is not walked again). Collectives in while
bodies and conditional branches are found through
:func:`~hloscope.hlo.placement.placements`: ``executions`` is the product of the known trip
counts of the loops around it (a loop without one counts once, as the cost model's
``executed`` totals count it); a branch counts as if taken.

**Bytes per device** is the size of the array the cost formulas move, per device:

* ``all-reduce``, ``reduce-scatter``, ``all-to-all``: what each device puts in (its
  operands);
* ``ragged-all-to-all``: its input buffer, the first operand (an upper bound: how much of it
  is sent is in the size operands, known only when it runs);
* ``all-gather``: what each device ends with, the operand times the group size;
* ``collective-permute``, ``collective-broadcast``, ``send``: the operand each device sends
  (every operand of a permute the combiner merged; the input of an in-place permute, the one
  with ``slice_sizes``); ``recv``: the array it receives.

The result shape of a start/done pair is the done's (an ``all-gather-start``'s own shape is
the bundle of its operand and result).

**Overlap**: for an asynchronous collective, the instructions scheduled between its start and
its done in the same computation (other collectives left out) are compute that can hide it;
their cost (:func:`~hloscope.analysis.cost.instruction_costs`) is summed in ``overlap``, and
pricing that cost on a device is :mod:`._pricing`'s job. A fused collective is asynchronous
only in an async collective fusion: then its start and done are the fusions that start and
end it, and the overlap is the instructions scheduled between those two fusions (the fusion
computing while it moves among them). Any other fused collective runs to its end inside its
kernel: synchronous, no overlap (the compute fused with it waits for it or feeds it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...hlo.attributes.sharding import (
    ReplicaGroups,
    decode_replica_groups,
    decode_source_target_pairs,
)
from ...hlo.errors import DecodeError
from ...hlo.model import Computation, Instruction, Module
from ...hlo.placement import Placement, Role, placements
from ..cost import Cost, instruction_costs
from ..provenance import source_of
from ._groups import DeviceMesh, braced_value, infer_mesh, mesh_axes_of, module_devices
from ._kinds import DONE_OPCODES, START_OPCODES, CollectiveKind, kind_of_opcode

__all__ = ["Collective", "find_collectives"]

_PAIRS_KEY = "_xla_send_recv_source_target_pairs"
# Where an attribute starts: at the text's start or after a separator (not inside a name such
# as a frontend attribute's). The value must end at the next separator or the text's end.
_GROUPS_AT = re.compile(r"(?:^|[\s,])replica_groups=")
_IOTA_GROUPS = re.compile(r"\[\d+,\d+\]<=\[[\d,]+\](?:T\([\d,]+\))?(?=,|\s*$)")
_CHANNEL_AT = re.compile(r"(?:^|[\s,])channel_id=(\d+)(?=,|\s*$)")
#: Starts whose shape is a tuple holding the result (``(f32[128], f32[1024])`` for an
#: all-gather-start; a permute's adds two u32[] scratch values), not the result itself.
_BUNDLED_STARTS = frozenset({"all-gather-start", "collective-permute-start"})
#: The kinds whose groups are ``(source, target)`` pairs: two devices take part in each.
_PAIRED = frozenset({CollectiveKind.COLLECTIVE_PERMUTE, CollectiveKind.SEND, CollectiveKind.RECV})
#: The opcodes that make a fused computation worth building: a collective, or a fusion that
#: may hold one.
_LOOKED_INTO = frozenset(
    {*(kind.value for kind in CollectiveKind), *START_OPCODES, "async-start", "fusion"}
)
#: The roots of the fusions that start and end an XLA:TPU async collective fusion.
_ASYNC_START = "AsyncCollectiveStart"
_ASYNC_DONE = "AsyncCollectiveDone"


@dataclass(slots=True)
class Collective:
    """One collective of a module (see the module doc for ``bytes`` and ``overlap``).

    ``groups`` are the device groups (a collective-permute's, a send's and a recv's are their
    ``(source, target)`` pairs); ``group_size`` the devices per group; ``where`` the
    control-flow path (``while.9 body x5``), empty in the entry.
    """

    name: str
    kind: CollectiveKind
    is_async: bool
    operand_shapes: list[str]
    result_shape: str
    bytes: int
    groups: tuple[tuple[int, ...], ...]
    group_size: int
    channel_id: int | None
    executions: int
    mesh_axes: list[str] | None
    op_name: str
    source: str
    computation: str
    where: str = ""
    done: str | None = None
    overlap: Cost = field(default_factory=Cost)
    overlapped_ops: int = 0
    #: Seconds on the chosen interconnect (set by :func:`._pricing.price`).
    estimate_s: float | None = None
    #: Seconds of the overlapping compute on the chosen device's roofline (async only).
    hidden_s: float | None = None
    #: The fusion (an instruction of a kernel computation) that runs it; ``""`` when the
    #: collective is a kernel of its own.
    fusion: str = ""
    #: Where the kernel that runs it is placed (``None`` for a collective made by hand).
    placement: Placement | None = field(default=None, repr=False, compare=False)

    @property
    def exposed_s(self) -> float | None:
        """The part of :attr:`estimate_s` no compute hides, per execution."""
        if self.estimate_s is None:
            return None
        if not self.is_async or self.hidden_s is None:
            return self.estimate_s
        return max(0.0, self.estimate_s - self.hidden_s)

    @property
    def num_groups(self) -> int:
        return len(self.groups)

    @property
    def executed_bytes(self) -> int:
        return self.bytes * self.executions

    def flat_row(self) -> dict[str, Any]:
        """The collective as one flat row (the views' tables and DataFrames): what it is,
        what it moves, how often, where, and its seconds (``None`` until a device priced it)."""
        return {
            "name": self.name,
            "kind": self.kind.value,
            "async": self.is_async,
            "bytes": self.bytes,
            "group_size": self.group_size,
            "num_groups": self.num_groups,
            "executions": self.executions,
            "executed_bytes": self.executed_bytes,
            "where": self.where,
            "op_name": self.op_name,
            "source": self.source,
            "estimate_s": self.estimate_s,
            "exposed_s": self.exposed_s,
        }


def find_collectives(module: Module) -> tuple[list[Collective], DeviceMesh | None, int]:
    """The collectives of ``module`` in the order they run (fused ones included, each once),
    its device mesh (when the module names one) and its number of devices."""
    devices = module_devices(module)
    where = placements(module)
    mesh = infer_mesh(module, [p.computation for p in where.values()])
    reading = _Reading(mesh, devices, instruction_costs(module))
    found: list[Collective] = []
    fused: dict[object, Collective] = {}  # by channel (or instruction): each listed once
    for placement in where.values():
        if _inside_async(placement):
            continue  # the async-start that calls it lists the collective it wraps
        comp = placement.computation
        for index, inst in enumerate(comp.instructions):
            op = _collective_op(inst)
            if op is not None:
                kind, core = op
                found.append(_collective(inst, core, kind, comp, index, placement, reading))
            elif inst.opcode == "fusion":
                found += _fused(inst, index, placement, reading, fused)
    return found, mesh, devices


def _fused(
    fusion: Instruction,
    index: int,
    placement: Placement,
    reading: _Reading,
    seen: dict[object, Collective],
) -> list[Collective]:
    """The collectives first found in ``fusion`` (instruction ``index`` of a kernel
    computation); a copy of one already found (its channel) gives it a source it lacks."""
    out = []
    for core, kind in _fused_collectives(fusion):
        channel = _channel(core)
        key: object = (kind, channel) if channel is not None else id(core)
        known = seen.get(key)
        if known is not None:
            if not known.source:
                known.source = _source(core, fusion)
                known.op_name = known.op_name or core.op_name
            continue
        found = _collective(
            core, core, kind, placement.computation, index, placement, reading, fused=True
        )
        found.op_name = found.op_name or fusion.op_name
        found.computation = core.computation.name if core.computation is not None else ""
        found.source = found.source or _source(core, fusion)
        found.fusion = fusion.name
        found.where = " > ".join(filter(None, [found.where, f"{fusion.name} fused"]))
        done = _fused_done(fusion, index, placement.computation, key)
        if done is not None:
            found.is_async = True
            _overlap(found, fusion, placement.computation, index, reading.cost_of, done)
        seen[key] = found
        out.append(found)
    return out


def _fused_collectives(fusion: Instruction) -> list[tuple[Instruction, CollectiveKind]]:
    """The collectives in ``fusion``'s fused computations, nested fusions' included. A body
    is built only where its opcodes (read without building it) hold a collective or a
    fusion: the fusions of a large module are mostly neither."""
    out = []
    todo = list(fusion.called_computations)
    seen: set[int] = set()
    while todo:
        comp = todo.pop(0)
        if id(comp) in seen:
            continue
        seen.add(id(comp))
        if _LOOKED_INTO.isdisjoint(comp.opcodes()):
            continue
        for inst in comp.instructions:
            op = _collective_op(inst)
            if op is not None:
                out.append((op[1], op[0]))
            elif inst.opcode == "fusion":
                todo += inst.called_computations
    return out


def _fused_done(
    fusion: Instruction, index: int, comp: Computation, key: object
) -> Instruction | None:
    """The fusion that ends the async collective fusion ``fusion`` starts (the first later in
    ``comp`` whose root is ``AsyncCollectiveDone`` and that holds the same collective);
    ``None`` when ``fusion`` starts none."""
    if _root_target(fusion) != _ASYNC_START:
        return None
    for later in comp.instructions[index + 1 :]:
        if later.opcode != "fusion" or _root_target(later) != _ASYNC_DONE:
            continue
        for core, kind in _fused_collectives(later):
            channel = _channel(core)
            if ((kind, channel) if channel is not None else id(core)) == key:
                return later
    return None


def _root_target(fusion: Instruction) -> str:
    """The ``custom_call_target`` of the root of ``fusion``'s computation (``""``: none)."""
    fused = fusion.fused_computation
    if fused is None:
        return ""
    at = fused.root_position()
    if at < 0 or fused.opcodes()[at] != "custom-call":
        return ""  # known without building the body, which most fusions never need
    root = fused.root
    if root is None or root.opcode != "custom-call":
        return ""
    target = root.attrs.get("custom_call_target")
    return target if isinstance(target, str) else ""


def _source(core: Instruction, fusion: Instruction) -> str:
    module = fusion.computation.module if fusion.computation is not None else None
    return source_of(
        core.stack or fusion.stack,
        core.op_name or fusion.op_name,
        module.name if module is not None else "",
    )


@dataclass(slots=True)
class _Reading:
    """What every collective of one module is read against, and what its collectives share:
    an SPMD module repeats the same few replica groups over thousands of collectives, so each
    distinct text is decoded, and each distinct set of groups placed on the mesh, once."""

    mesh: DeviceMesh | None
    devices: int
    cost_of: Callable[[Instruction], Cost]
    groups: dict[str, tuple[tuple[int, ...], ...]] = field(default_factory=dict)
    axes: dict[tuple[tuple[int, ...], ...], list[str] | None] = field(default_factory=dict)

    def mesh_axes(self, groups: tuple[tuple[int, ...], ...]) -> list[str] | None:
        if groups not in self.axes:
            self.axes[groups] = mesh_axes_of(groups, self.mesh, self.devices)
        axes = self.axes[groups]
        return None if axes is None else list(axes)  # each collective owns its list


def _inside_async(placement: Placement) -> bool:
    step = placement.step
    return step is not None and step.role is Role.CALL and step.instruction.opcode == "async-start"


def _collective_op(inst: Instruction) -> tuple[CollectiveKind, Instruction] | None:
    """The kind of collective ``inst`` starts (or is) and the instruction holding its
    attributes (the wrapped op of an ``async-start``)."""
    op = inst.opcode
    kind = kind_of_opcode(op) or START_OPCODES.get(op)
    if kind is not None:
        return kind, inst
    if op == "async-start":
        wrapped = inst.async_wrapped
        if wrapped is not None:
            inner = kind_of_opcode(wrapped.opcode)
            if inner is not None:
                return inner, wrapped
    return None


def _collective(
    inst: Instruction,
    core: Instruction,
    kind: CollectiveKind,
    comp: Computation,
    index: int,
    placement: Placement,
    reading: _Reading,
    fused: bool = False,
) -> Collective:
    groups = _groups(core, kind, reading)
    # A permute is between two devices even when its pairs are not written; so are a send
    # and its recv when their pairs are.
    pairs = kind is CollectiveKind.COLLECTIVE_PERMUTE or (kind in _PAIRED and groups)
    size = 2 if pairs else (len(groups[0]) if groups else 1)
    operand_shapes = [o.shape_text for o in core.operands]
    # A fused one is asynchronous only as its kernels say (see _fused).
    is_async = not fused and (inst is not core or inst.opcode in START_OPCODES)
    found = Collective(
        name=inst.name,
        kind=kind,
        is_async=is_async,
        operand_shapes=operand_shapes,
        result_shape=core.shape_text,
        bytes=_bytes(core, kind, size),
        groups=groups,
        group_size=size,
        channel_id=_channel(core),
        executions=placement.executions,
        mesh_axes=reading.mesh_axes(groups),
        op_name=core.op_name or inst.op_name,
        source=source_of(
            core.stack or inst.stack,
            core.op_name,
            comp.module.name if comp.module is not None else "",
        ),
        computation=comp.name,
        where=_where(placement),
        placement=placement,
    )
    if is_async:
        _overlap(found, inst, comp, index, reading.cost_of, _done_of(inst))
    return found


def _groups(
    core: Instruction, kind: CollectiveKind, reading: _Reading
) -> tuple[tuple[int, ...], ...]:
    if kind is CollectiveKind.COLLECTIVE_PERMUTE:
        pairs = core.attrs.get("source_target_pairs") or ()
        return tuple(tuple(p) for p in pairs)
    if kind in (CollectiveKind.SEND, CollectiveKind.RECV):
        return _send_recv_pairs(core)
    raw = _replica_groups_text(core.attr_text)
    if raw is None:  # the mesh form, or text only the full attribute split can place
        return _listed(core.attrs.get("replica_groups"), reading.devices)
    known = reading.groups.get(raw)
    if known is None:
        try:
            decoded = decode_replica_groups(raw, core.opcode) if raw else None
        except DecodeError:  # the attribute mapping says what is wrong, and where
            decoded = core.attrs.get("replica_groups")
        known = reading.groups[raw] = _listed(decoded, reading.devices)
    return known


def _listed(groups: ReplicaGroups | None, devices: int) -> tuple[tuple[int, ...], ...]:
    listed = tuple(tuple(g) for g in groups) if groups is not None else ()
    # `replica_groups={}` (or none written) means every device takes part, in one group.
    return listed or (tuple(range(devices)),)


def _replica_groups_text(text: str) -> str | None:
    """The ``replica_groups=`` value as written, found without splitting the attribute text
    (``""`` when there is none): the explicit list ``{{0,1},{2,3}}`` (its braces balance
    where it ends) or the iota form ``[2,4]<=[4,2]T(1,0)``. ``None`` for anything else."""
    found = _GROUPS_AT.search(text)
    if found is None:
        return "" if "replica_groups=" not in text else None
    if '"' in text[: found.start()]:
        return None  # after a string (metadata first?): the match may be inside it
    start = found.end()
    if text.startswith("{", start):
        return braced_value(text, start)
    iota = _IOTA_GROUPS.match(text, start)
    return iota.group(0) if iota is not None else None


def _send_recv_pairs(core: Instruction) -> tuple[tuple[int, ...], ...]:
    """The ``(source, target)`` pairs of a ``send``/``recv``: XLA keeps them in the
    ``_xla_send_recv_source_target_pairs`` frontend attribute (``{{0,1},{1,2}}``), written
    by jax's ``psend``/``precv`` and by the GPU pass that pipelines permutes; none when the
    attribute is absent (a host transfer) or unreadable."""
    frontend = core.attrs.get("frontend_attributes")
    raw = frontend.get(_PAIRS_KEY) if isinstance(frontend, dict) else None
    if not isinstance(raw, str):
        return ()
    try:
        return decode_source_target_pairs(raw, core.opcode)
    except DecodeError:  # a value this reading cannot place: the pairs stay unknown
        return ()


def _array_bytes(shape) -> int:
    return sum(leaf.byte_size or 0 for leaf in shape.leaves() if leaf.is_array)


def _bytes(core: Instruction, kind: CollectiveKind, group_size: int) -> int:
    operands = core.operands
    if kind is CollectiveKind.RECV:
        leaves = [leaf for leaf in core.shape.leaves() if leaf.is_array]
        return (leaves[0].byte_size or 0) if leaves else 0
    if kind is CollectiveKind.COLLECTIVE_PERMUTE and "slice_sizes=" not in core.attr_text:
        # Not the in-place form (input, output buffer, two index tuples): every operand is
        # data, several when XLA's combiner merged permutes into one.
        return sum(_array_bytes(o.shape) for o in operands)
    if kind in (
        CollectiveKind.COLLECTIVE_PERMUTE,
        CollectiveKind.COLLECTIVE_BROADCAST,
        CollectiveKind.SEND,
        CollectiveKind.RAGGED_ALL_TO_ALL,
    ):
        # The first operand is the data; the rest are buffers, offsets or tokens.
        return _array_bytes(operands[0].shape) if operands else 0
    moved = sum(_array_bytes(o.shape) for o in operands)
    if kind is CollectiveKind.ALL_GATHER:
        return moved * group_size
    return moved


def _channel(core: Instruction) -> int | None:
    text = core.attr_text
    if "channel_id=" not in text:
        return None
    quick = _CHANNEL_AT.search(text)
    if quick is not None and '"' in text[: quick.start()]:
        quick = None  # after a string: the match may be inside it
    value = quick.group(1) if quick is not None else core.attrs.get("channel_id")
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _where(placement: Placement) -> str:
    parts = []
    for step in placement.path:
        if step.role is Role.BRANCH:
            parts.append(f"{step.instruction.name} branch {step.branch}")
        elif step.in_loop:
            trips = "?" if step.trip_count is None else str(step.trip_count)
            parts.append(f"{step.instruction.name} {step.role.value} x{trips}")
        else:
            parts.append(f"{step.instruction.name} {step.role.value}")
    return " > ".join(parts)


def _done_of(start: Instruction) -> Instruction | None:
    """The done ending ``start``: follow ``async-update`` users to the first ``*-done``."""
    node = start
    for _ in range(10_000):  # a bound on update chains, not a loop XLA writes
        users = node.users
        done = next((u for u in users if u.opcode in DONE_OPCODES), None)
        if done is not None:
            return done
        update = next((u for u in users if u.opcode == "async-update"), None)
        if update is None:
            return None
        node = update
    return None


def _overlap(
    found: Collective,
    start: Instruction,
    comp: Computation,
    index: int,
    cost_of: Callable[[Instruction], Cost],
    done: Instruction | None,
) -> None:
    if done is None:
        return
    found.done = done.name
    if start.opcode in _BUNDLED_STARTS:
        # Their start's shape is a bundle (operand, result, scratch): the result is the done's.
        found.result_shape = done.shape_text
    total = Cost()
    count = 0
    for inst in comp.instructions[index + 1 :]:
        if inst is done:
            break
        if _collective_op(inst) is not None or inst.opcode in DONE_OPCODES:
            continue
        if inst.opcode == "async-update":
            continue
        total = total + cost_of(inst)
        count += 1
    found.overlap = total
    found.overlapped_ops = count

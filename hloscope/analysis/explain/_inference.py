"""Kernels without a line: XLA makes some kernels (the ``reduce-window`` a tree reduction splits
off, copies) or drops their metadata; :func:`_infer` traces each to a line, marked as inferred,
from an earlier stage's op of the same ``op_name``, the op before optimization it holds, or
the nearest op with a line along what reads it, else what it reads."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...hlo.model import Module
from ...stages import Stage
from ..fusions import op_source
from ._linking import _DISTINCT_OPCODES, _Builder, _members, _op_key
from ._results import ExplainedKernel

if TYPE_CHECKING:  # pragma: no cover
    from ...hlo.model import Instruction


def _sources_by_name(builder: _Builder) -> dict[str, list[str]]:
    """For each op_name part of an earlier stage's op with a line, those lines."""
    table: dict[str, list[str]] = {}
    for line in builder.lines.values():
        for stage in (Stage.HLO, Stage.STABLEHLO, Stage.OPTIMIZED_HLO):
            for op in line.ops.get(stage, ()):
                for part in op.op_name.split(";"):
                    names = table.setdefault(part, [])
                    if op.source not in names:
                        names.append(op.source)
    return table


# An op's chain is searched this far (ops visited) for a line: a bound, not a loop guard.
_CHAIN_LIMIT = 256


def _same_op_before(members: list[Instruction], builder: _Builder) -> tuple[str, str] | None:
    """``(line, name)`` of the op before optimization that a member of a bare kernel is (same
    opcode and shape, found in no kernel), when every such op is on one line."""
    for member in members:
        if member.opcode not in _DISTINCT_OPCODES:
            continue
        found = builder.unlinked.get(_op_key(member), [])
        lines = {source for source, _ in found}
        if len(lines) == 1:
            return found[0]
    return None


def _member_line(fused: Any, start: Sequence[Instruction], users: bool) -> str:
    """The line of the member nearest to ``start`` inside a fused computation: along its
    users (from the parameters a value enters by) or its operands (from the root)."""
    seen = {id(inst) for inst in start}
    queue = deque(start)
    while queue:
        current = queue.popleft()
        source = op_source(current) if current.opcode != "parameter" else ""
        if source:
            return source
        for other in current.users if users else current.operands:
            if id(other) not in seen and other.computation is fused:
                seen.add(id(other))
                queue.append(other)
    return ""


def _line_inside(fusion: Instruction, came_from: Instruction | None, users: bool) -> str:
    """The line of the op inside ``fusion`` that takes ``came_from`` (``users``), or that
    makes the fusion's result (not ``users``)."""
    fused = fusion.fused_computation
    if fused is None:
        return ""
    if not users:
        return _member_line(fused, [fused.root] if fused.root is not None else [], False)
    positions = {i for i, operand in enumerate(fusion.operands) if operand is came_from}
    entering = [p for p in fused.parameters if p.parameter_number in positions]
    return _member_line(fused, entering, True)


def _chain_line(inst: Instruction, users: bool) -> tuple[str, str] | None:
    """``(line, name)``: the nearest op with a line on ``inst``'s operand chain (``users``
    False) or user chain, and the op of ``inst``'s computation that holds it.

    The chain goes through ops with no line of their own (copies, bitcasts, tuples) and into
    kernels: of a fusion, the member that takes the value in (or makes the result) decides,
    not the fusion's most common line. Ops outside kernels count too: a ``while`` or ``call``
    carries its loop's line, so the copy XLA makes of a loop counter gets the loop's line."""
    seen = {id(inst)}
    queue: deque[tuple[Instruction, Instruction]] = deque()
    for other in inst.users if users else inst.operands:
        queue.append((other, inst))
    while queue and len(seen) < _CHAIN_LIMIT:
        current, came_from = queue.popleft()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if current.opcode == "fusion":
            source = _line_inside(current, came_from, users)
        elif current.opcode == "parameter":
            source = ""
        else:
            source = op_source(current)
        if source:
            return source, current.name
        for other in current.users if users else current.operands:
            queue.append((other, current))
    return None


def _infer(after: Module, kernels: dict[str, ExplainedKernel], builder: _Builder) -> None:
    """Give every kernel without a source of its own the lines of its op_name or neighbours.

    An ``op_name`` found in earlier stages names its lines; a generic one (every backward
    ``transpose`` shares one) names many, and then the line of the nearest op in the graph
    decides when it is among them. Without an ``op_name`` line, the nearest op's line is
    taken (:func:`_chain_line`): first along what reads the kernel, since a kernel XLA split
    off an op feeds the rest of that op (the first half of a split reduction feeds the reduce
    inside the next fusion, whatever that fusion's other lines; a loop counter's copy feeds
    the loop), else along what it reads.
    """
    by_name = _sources_by_name(builder)
    for kernel in kernels.values():
        if kernel.sources:
            continue
        inst = after.computation(kernel.computation).get(kernel.name)
        if inst is None:
            continue
        members = _members(inst)
        named = _named_sources(inst, kernel.op_name, by_name)
        near = _nearest_line(inst)
        same = _same_op_before(members, builder) if not named else None
        if named and near is not None and near[0] in named and len(named) > 1:
            kernel.inferred_sources = [near[0]]
            kernel.inferred_how = f"op_name, {near[1]}"
        elif named:
            kernel.inferred_sources, kernel.inferred_how = named, "op_name"
        elif same is not None:
            kernel.inferred_sources, kernel.inferred_how = [same[0]], f"holds {same[1]}"
        elif near is not None:
            kernel.inferred_sources, kernel.inferred_how = [near[0]], near[1]
        for source in kernel.inferred_sources:
            builder.add_kernel(source, kernel.name, inferred=True)
        _link_inferred(builder, kernel, members)


def _link_inferred(builder: _Builder, kernel: ExplainedKernel, members: list[Instruction]) -> None:
    """Earlier ops of an inferred kernel's line that ended in no kernel, of an opcode the
    kernel holds (a ``dot`` whose kernel lost its metadata), end in it; and so do the
    StableHLO ops and jaxpr equations of their primitive on that line. Only opcodes XLA does
    not duplicate or merge (:data:`_DISTINCT_OPCODES`): a removed ``multiply`` of the line is
    not the one a bare kernel holds."""
    opcodes = {m.opcode for m in members} & _DISTINCT_OPCODES
    for source in kernel.inferred_sources:
        line = builder.lines.get(source)
        if line is None:
            continue
        primitives = set()
        for op in line.ops.get(Stage.HLO, ()):
            if not op.kernels and op.op in opcodes:
                op.kernels, op.fate = [kernel.name], ""
                primitives.add(_last_part(op.op_name))
        for stage in (Stage.STABLEHLO, Stage.JAXPR):
            for op in line.ops.get(stage, ()):
                primitive = op.op if stage is Stage.JAXPR else _last_part(op.op_name)
                if not op.kernels and primitive in primitives:
                    op.kernels, op.fate = [kernel.name], ""


def _last_part(op_name: str) -> str:
    return op_name.split(";")[0].rsplit("/", 1)[-1]


def _named_sources(inst: Instruction, op_name: str, by_name: dict[str, list[str]]) -> list[str]:
    found: list[str] = []
    for name in [op_name] + [m.metadata.op_name for m in _members(inst)]:
        for part in name.split(";"):
            found.extend(s for s in by_name.get(part, ()) if s not in found)
    return found


def _nearest_line(inst: Instruction) -> tuple[str, str] | None:
    """``(line, "feeds K")`` of the nearest op with a line, users first (see :func:`_infer`)."""
    for users, word in ((True, "feeds"), (False, "fed by")):
        found = _chain_line(inst, users)
        if found is not None:
            return found[0], f"{word} {found[1]}"
    return None

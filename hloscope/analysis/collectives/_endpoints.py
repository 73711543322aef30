"""The ops on either side of a collective: the op that made the value it moves and the ops
that read its result, walking through the ops that only move or reshape a value (copies,
bitcasts, tuples, a fusion's parameters), each with its source line.

Also what makes a collective a resharding XLA inserted (not one the user wrote).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import Any

from ...hlo.model import Computation, Instruction
from ...hlo.placement import kernel_computations
from ...json_fields import json_fields
from ..provenance import source_of
from ._kinds import DONE_OPCODES, START_OPCODES, CollectiveKind, kind_of_opcode

__all__ = ["Endpoint", "Memo", "consumers_of", "is_resharding", "producer_of"]


@dataclass(frozen=True, slots=True)
class Endpoint:
    """An op that computes (not only moves) a value: ``name`` and ``opcode`` in the HLO,
    the framework's ``op_name`` and the user's ``source`` line. ``output`` marks a value
    that leaves the program as it is."""

    name: str
    opcode: str
    op_name: str
    source: str
    output: bool = False

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "name opcode op_name source output")


#: Ops that move or relabel data without computing it: a resharding is traced through them.
_MOVES = frozenset(
    {
        "bitcast",
        "copy",
        "copy-start",
        "copy-done",
        "reshape",
        "transpose",
        "get-tuple-element",
        "tuple",
        "slice",
        "dynamic-slice",
        "concatenate",
        "pad",
        "optimization-barrier",
        "async-start",
        "async-update",
        "async-done",
        *DONE_OPCODES,
    }
)
_RESHARDING_KINDS = frozenset(
    {CollectiveKind.ALL_GATHER, CollectiveKind.ALL_TO_ALL, CollectiveKind.COLLECTIVE_PERMUTE}
)
# jax's collective primitives: a collective whose op name ends in one the user wrote.
_USER_COLLECTIVE = re.compile(
    r"(^|/)(psum|pmax|pmin|pmean|ppermute|pshuffle|pswapaxes|all_gather|all_to_all|"
    r"psum_scatter|reduce_scatter|pbroadcast|ragged_all_to_all)(\[|$)"
)
_MAX_STEPS = 10_000  # a bound on one walk: no value moves through more ops than this


def _kind(inst: Instruction) -> CollectiveKind | None:
    kind = kind_of_opcode(inst.opcode) or START_OPCODES.get(inst.opcode)
    if kind is None and inst.opcode == "async-start":
        wrapped = inst.async_wrapped
        kind = kind_of_opcode(wrapped.opcode) if wrapped is not None else None
    return kind


def is_resharding(inst: Instruction) -> bool:
    """Whether ``inst`` is a collective the partitioner inserted to change a sharding."""
    kind = _kind(inst)
    if kind not in _RESHARDING_KINDS:
        return False
    core = inst.async_wrapped if inst.opcode == "async-start" else inst
    op_name = (core.op_name if core is not None else "") or inst.op_name
    return _USER_COLLECTIVE.search(op_name) is None


def _moves(inst: Instruction) -> bool:
    return inst.opcode in _MOVES or _kind(inst) in _RESHARDING_KINDS


class Memo:
    """What the walks over one module share (pass one to :func:`producer_of` and
    :func:`consumers_of` for every collective of a module): a module's resharding chains share
    their ends (the op between two collectives is the consumer of one and the producer of the
    next), and its thousands of collectives enter the same fusions, so each endpoint, each
    fused computation's parameters and the fusion each walk came in through are worked out once.
    """

    __slots__ = ("endpoints", "parameters", "fusions", "_kernels")

    def __init__(self) -> None:
        #: Endpoints made, by the instruction's id.
        self.endpoints: dict[int, Endpoint] = {}
        #: Each fused computation's parameters in order, by its id.
        self.parameters: dict[int, list[Instruction]] = {}
        #: The fusion a walk entered each fused computation from, by the computation's id.
        self.fusions: dict[int, Instruction] = {}
        self._kernels: set[int] | None = None

    def parameters_of(self, fused: Computation) -> list[Instruction]:
        known = self.parameters.get(id(fused))
        if known is None:
            known = self.parameters[id(fused)] = fused.parameters
        return known

    def entered(self, fusion: Instruction, fused: Computation) -> None:
        self.fusions.setdefault(id(fused), fusion)

    def fusion_calling(self, comp: Computation) -> Instruction | None:
        """The fusion whose fused computation ``comp`` is (``None`` for a kernel computation).

        A walk reaches a fused computation through its fusion, and remembers it: the answer
        needs no callers table, which is built from every instruction of the module (every
        fused body built, more than the parse of a large module costs). Only a computation
        no walk entered, outside the kernels, is looked up in it.
        """
        fusion = self.fusions.get(id(comp))
        if fusion is not None:
            return fusion
        if comp.is_entry:
            return None
        module = comp.module
        if self._kernels is None:
            kernels = kernel_computations(module) if module is not None else []
            self._kernels = {id(k) for k in kernels}
        if id(comp) in self._kernels or not comp.is_fusion_computation:
            return None
        callers = comp.callers
        return callers[0] if callers else None


def _endpoint(inst: Instruction, memo: Memo | None = None, output: bool = False) -> Endpoint:
    known = memo.endpoints.get(id(inst)) if memo is not None else None
    if known is not None and known.output == output:
        return known
    module = inst.computation.module if inst.computation is not None else None
    made = Endpoint(
        inst.name,
        inst.opcode,
        inst.op_name,
        source_of(inst.stack, inst.op_name, module.name if module is not None else ""),
        output,
    )
    if memo is not None:
        memo.endpoints[id(inst)] = made
    return made


def _fusion_of(inst: Instruction, memo: Memo) -> Instruction | None:
    """The fusion instruction whose fused computation ``inst`` is a parameter of."""
    comp = inst.computation
    return memo.fusion_calling(comp) if comp is not None else None


def producer_of(inst: Instruction, memo: Memo | None = None) -> Endpoint | None:
    """The op that computes the value ``inst`` (a collective: its first operand) carries
    (``memo``, shared between calls on one module, saves remaking the same endpoint)."""
    if memo is None:
        memo = Memo()
    node: Instruction | None = inst.operands[0] if _kind(inst) is not None else inst
    for _ in range(_MAX_STEPS):
        if node is None:
            return None
        if node.opcode == "parameter":
            fusion = _fusion_of(node, memo)
            number = node.parameter_number
            if fusion is None or number is None or number >= len(fusion.operands):
                return _endpoint(node, memo)  # an entry (or loop body) parameter
            node = fusion.operands[number]
        elif node.opcode == "fusion" and node.fused_computation is not None:
            fused = node.fused_computation
            memo.entered(node, fused)
            node = fused.root
        elif _moves(node):
            node = node.operands[0] if node.operands else None
        else:
            return _endpoint(node, memo)
    return None


def consumers_of(inst: Instruction, limit: int = 8, memo: Memo | None = None) -> list[Endpoint]:
    """The ops that compute with the value ``inst`` produces (up to ``limit``, in order)."""
    if memo is None:
        memo = Memo()
    found: dict[tuple[str, str], Endpoint] = {}
    todo = deque([inst])
    seen = {id(inst)}
    steps = 0
    while todo and len(found) < limit and steps < _MAX_STEPS:
        node = todo.popleft()
        steps += 1
        nexts = _users_inside(node, memo)
        if not nexts and node.is_root:
            fusion = _fusion_of(node, memo)
            if fusion is not None:
                nexts = [fusion]
            elif node.computation is not None and node.computation.is_entry:
                found.setdefault(("", "output"), _endpoint(node, memo, output=True))
        for user in nexts:
            if id(user) in seen:
                continue
            seen.add(id(user))
            through = user.opcode == "fusion" and user.fused_computation is not None
            if through or _moves(user) or user.opcode == "parameter":
                todo.append(user)  # a fused parameter: its users inside the fusion are next
            else:
                end = _endpoint(user, memo)
                found.setdefault((end.op_name, end.source), end)
    return list(found.values())


def _users_inside(node: Instruction, memo: Memo) -> list[Instruction]:
    """``node``'s users, a fusion's users being the fused parameters it feeds."""
    out = []
    for user in node.users:
        fused = user.fused_computation if user.opcode == "fusion" else None
        if fused is not None:
            memo.entered(user, fused)
            params = memo.parameters_of(fused)
            for i, operand in enumerate(user.operands):
                if operand is node and i < len(params):
                    out.append(params[i])
        else:
            out.append(user)
    return out

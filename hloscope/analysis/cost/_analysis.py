"""The analysis: costs of instructions, computations and modules, each computed once.

:class:`_Analysis` holds one module's costs under one set of options (how custom calls are
priced, whether loops count their trip counts) and applies the rules of :mod:`._rules` to each
instruction. The public functions find a module's analysis (kept as long as the module lives)
and ask it. Nothing recurses on nesting: computations are costed callees first, in an order
worked out with an explicit stack.
"""

from __future__ import annotations

import operator
import warnings
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ...errors import HloscopeError
from ...hlo.gc_pause import gc_paused
from ...hlo.opcodes import category_of
from ...hlo.placement import CONTROL_FLOW_OPCODES, kernel_computations, known_trip_count
from ...hlo.structure import structure_id
from ._columns import BodyColumns, fusion_bytes
from ._columns import body_costs as column_costs
from ._columns import fusion_cost as column_fusion_cost
from ._results import (
    ZERO,
    Cost,
    CostWarning,
    FlaggedOp,
    ModuleCost,
    _join_flags,
    _Malformed,
    _malformed_cost,
    _max_cost,
)
from ._rules import (
    _CALLING_RULES,
    _DEFAULT_OPCODES,
    _HANDLERS,
    _ONE_FLOP_PER_ELEMENT,
    TRANSCENDENTAL_OPCODES,
    ZERO_COST_OPCODES,
    CustomCallRule,
    _gather,
    _scatter,
    _tuple_index,
)
from ._shapes import (
    _array_subshapes,
    _elements_of,
    _leaf_indices,
    _output_size_of,
    _size_of,
    shape_size,
)

if TYPE_CHECKING:  # pragma: no cover
    from ...hlo.model import Computation, Instruction, Module

IMMEDIATE_CONSTANT_MAX_ELEMENTS = 1  # larger fused constants are read from memory


class _Analysis:
    """Costs of one module's instructions and computations, computed once and cached."""

    __slots__ = (
        "custom_calls",
        "trip_counts",
        "flagged",
        "_pool",
        "_inst",
        "_comp",
        "_pending",
        "_alike",
        "_alike_fusions",
        "_alike_bodies",
        "_read",
        "_leaves",
        "__weakref__",
    )

    def __init__(self, custom_calls: CustomCallRule = "boundary", trip_counts: bool = False):
        self.custom_calls = custom_calls
        self.trip_counts = trip_counts
        # How many instructions costed so far carry a flag: while none does, a report need
        # not walk every fused op to list them.
        self.flagged = 0
        self._pool: dict[tuple[int, int, int, int, int, str], Cost] = {}
        self._pooled(ZERO)
        # Keyed by the objects themselves (hashed by identity): an id() key needed the object
        # beside the cost to tell a reused id, a tuple per op that held a fifth of the memory.
        self._inst: dict[Instruction, Cost] = {}
        self._comp: dict[Computation, Cost] = {}
        # Computations whose costing has begun but not ended: asked for again, they call
        # themselves (not valid HLO, which the parser does not check).
        self._pending: set[int] = set()
        # Costs per structure (hloscope.hlo.structure): a deep model's layers repeat their
        # fused computations under other names, and each distinct body is costed once. Only
        # unflagged costs are kept (a flag names the op it is about).
        self._alike: dict[int, Cost] = {}  # computation costs
        self._alike_fusions: dict[tuple[str, str, int], Cost] = {}  # (shape, kind, body)
        self._alike_bodies: dict[int, list[Cost]] = {}  # the cost of each instruction
        # Bodies costed from the parser's columns (._columns), kept for the fusion that asked
        # for their cost to read its boundary bytes from the same columns.
        self._read: dict[Computation, BodyColumns] = {}
        # Per structure, whether its computations call nothing: a walk from a caller need not
        # cost them first (whoever needs the cost of one asks for it, a walk of one step),
        # and a fusion of an unbuilt one is costed at its boundary from its columns.
        self._leaves: dict[int, bool] = {}

    # --- computations ---------------------------------------------------------------------
    def computation(self, comp: Computation) -> Cost:
        """Sum over every instruction of ``comp`` (XLA's ``ProcessSubcomputation``).

        The rules of fusions, calls, loops and reductions ask for the cost of the computations
        they call. Asking for them on the way down would recurse once per level of nesting,
        so everything ``comp`` reaches is costed first, callees before callers: each rule
        then finds its callees' costs already cached. The walk asks as it goes whether a
        computation is known, so the second copy of a body costed meanwhile is not entered
        (not even built).
        """
        hit = self._known(comp)
        if hit is not None:
            return hit
        if id(comp) in self._pending:
            message = f"computation {comp.name} calls itself: costed as 0"
            warnings.warn(
                message + " (not valid HLO: XLA's verifier refuses cycles)",
                CostWarning,
                stacklevel=2,
            )
            return Cost(flag=message)
        for callee in _callees_first(comp, self._is_known, active=self._pending):
            cost = self._known(callee)
            if cost is None:
                cost = self._sum(callee)
                if not cost.flag and not callee.is_entry:
                    self._alike[structure_id(callee)] = cost
            self._comp[callee] = cost
        return self._comp[comp]

    def _known(self, comp: Computation) -> Cost | None:
        """The cost of ``comp`` if costed, or of a computation alike (the entry has none)."""
        hit = self._comp.get(comp)
        if hit is None and not comp.is_entry and self._alike:
            hit = self._alike.get(structure_id(comp))
        return hit

    def _is_known(self, comp: Computation) -> bool:
        """Whether a walk from a caller need not cost ``comp`` first: its cost is known, or
        it calls nothing (a body the columns price), so asking for it later recurses no
        deeper."""
        if self._known(comp) is not None:
            return True
        sid = structure_id(comp)
        found = self._leaves.get(sid)
        if found is None:
            # The distinct opcodes: a forked parse's child counted them already, and the
            # body's text is not read here for them.
            found = self._leaves[sid] = _CALLING_RULES.isdisjoint(comp.opcode_set())
        return found

    def body_costs(self, comp: Computation) -> list[Cost]:
        """The cost of each instruction of ``comp``, in order; one list per distinct body."""
        sid = structure_id(comp)
        costs = self._alike_bodies.get(sid)
        if costs is None:
            costs = self._costs_of(comp)
            if not any(c.flag for c in costs):
                self._alike_bodies[sid] = costs
        return costs

    def _costs_of(self, comp: Computation) -> list[Cost]:
        """Each op's cost: from the body's columns where they can say (a fused body of
        thousands of ops, never built), else op by op."""
        read = column_costs(comp, self._priced)
        if read is None:
            return list(map(self.instruction, comp.instructions))
        costs, self._read[comp], _ = read
        return costs

    def _sum(self, comp: Computation) -> Cost:
        # Each op's cost, then each field summed in C (a fused body holds thousands of ops);
        # the list is the body's costs for body_costs as well, which need not cost it again.
        read = column_costs(comp, self._priced)
        if read is not None:  # no op of it is flagged: the columns price no such op
            costs, self._read[comp], total = read
            if not comp.is_entry:
                self._alike_bodies.setdefault(structure_id(comp), costs)
            return total
        costs = list(map(self.instruction, comp.instructions))
        total = _total(costs)
        if not total.flag and not comp.is_entry:
            self._alike_bodies.setdefault(structure_id(comp), costs)
        return total

    def sub_ops(self, inst: Instruction, index: int = 0) -> Cost:
        """FLOPs of a scalar computation applied per element (reduce's ``to_apply``...)."""
        called = inst.called_computations
        if len(called) <= index:
            return ZERO
        return self.computation(called[index])

    # --- instructions ---------------------------------------------------------------------
    def instruction(self, inst: Instruction) -> Cost:
        hit = self._inst.get(inst)
        if hit is not None:
            return hit
        try:
            cost = self._compute(inst)
        except HloscopeError:
            raise  # an attribute that does not decode: the parser's error, with its position
        except _Malformed as e:
            cost = self._pooled(_malformed_cost(inst, str(e)))
        except (IndexError, ValueError, ZeroDivisionError) as e:
            # The rules below check what XLA's verifier would; these catch what they miss
            # (an operand list too short for the op, say), so that no HLO the parser accepted
            # makes a report fail.
            cost = self._pooled(_malformed_cost(inst, f"cannot apply the {inst.opcode} rule ({e})"))
        self._inst[inst] = cost
        if cost.flag:
            self.flagged += 1
        return cost

    # Ops of one shape cost the same, and a deep model repeats its shapes thousands of times:
    # one Cost object per distinct value keeps a 400k-op analysis small, and finding it by a
    # tuple of its numbers costs a seventh of making a (frozen) Cost.
    def _priced(self, flops: int, trans: int, read: int, written: int, flag: str = "") -> Cost:
        key = (flops, trans, read, written, read + written, flag)
        cost = self._pool.get(key)
        if cost is None:
            cost = self._pool[key] = Cost(flops, trans, read, written, read + written, flag)
        return cost

    def _pooled(self, cost: Cost) -> Cost:
        key = (
            cost.flops,
            cost.transcendentals,
            cost.bytes_read,
            cost.bytes_written,
            cost.bytes_accessed,
            cost.flag,
        )
        return self._pool.setdefault(key, cost)

    def default_read(self, inst: Instruction) -> int:
        return sum(map(_size_of, inst.operands))

    def default(self, inst: Instruction, flops: int = 0, trans: int = 0, flag: str = "") -> Cost:
        return self._priced(
            flops, trans, sum(map(_size_of, inst.operands)), _output_size_of(inst), flag
        )

    def _compute(self, inst: Instruction) -> Cost:
        """The cost of ``inst``, one of the pool's objects."""
        op = inst.opcode
        if op in ZERO_COST_OPCODES:
            return ZERO
        # The common ops first, in one step each: a fused body is mostly these.
        if op in _ONE_FLOP_PER_ELEMENT:
            n = _elements_of(inst)
            read = sum(map(_size_of, inst.operands))
            if op in TRANSCENDENTAL_OPCODES:
                return self._priced(0, n, read, _output_size_of(inst))
            return self._priced(n, 0, read, _output_size_of(inst))
        if op in _DEFAULT_OPCODES:
            return self._priced(0, 0, sum(map(_size_of, inst.operands)), _output_size_of(inst))
        handler = _HANDLERS.get(op)
        if handler is not None:
            return self._pooled(handler(self, inst))
        if category_of(op) == "unknown":
            return self.default(inst, flag=f"unknown opcode {op!r}: boundary bytes, 0 FLOPs")
        # NO_XLA_RULE_OPCODES: known to the opcode table, not to XLA's analysis. (Any other
        # opcode of the table has a rule above: tests/test_cost_rules.py sees to it.)
        return self.default(inst)

    # --- fusions --------------------------------------------------------------------------
    def fusion(self, inst: Instruction) -> Cost:
        fused = inst.fused_computation
        if fused is None:
            return self.default(inst, flag="fusion without a fused computation")
        # What the rules below read: the fusion's shape and kind and its fused body.
        key = (inst.shape_text, inst.fusion_kind or "", structure_id(fused))
        cost = self._alike_fusions.get(key)
        if cost is None:
            cost = self._fusion_of(inst, fused)
            if not cost.flag and key[0]:
                self._alike_fusions[key] = cost
        return cost

    def _fusion_of(self, inst: Instruction, fused: Computation) -> Cost:
        if inst.fusion_kind == "kCustom" and not {"gather", "scatter"}.isdisjoint(fused.opcodes()):
            # XLA prices a custom fusion holding a gather or scatter as that op alone.
            for sub in fused.instructions:
                if sub.opcode == "gather":
                    return _gather(self, sub)
                if sub.opcode == "scatter":
                    return _scatter(self, sub)
        if self._known(fused) is None:
            # Its ops not costed yet: the FLOPs and boundary bytes from its columns, no op
            # costed one by one (a report that lists them asks for them: body_costs).
            cost = column_fusion_cost(inst, fused)
            if cost is not None:
                return cost
        inner = self.computation(fused)
        body = self._read.pop(fused, None)
        if body is None:  # its cost was known (a body alike): its bytes are its own
            columns = fused.text_columns()
            body = BodyColumns(columns) if columns is not None else None
        boundary = fusion_bytes(inst, body) if body is not None else None
        if boundary is not None:
            read, written = boundary
            return Cost(
                inner.flops, inner.transcendentals, read, written, read + written, inner.flag
            )
        written = self._fusion_output_bytes(inst, fused)
        read = 0
        for sub in fused.instructions:
            if sub.opcode == "constant" and _elements_of(sub) > IMMEDIATE_CONSTANT_MAX_ELEMENTS:
                read += _size_of(sub)
        for param in fused.parameters:
            read += self._fusion_operand_bytes(param)
        return Cost(inner.flops, inner.transcendentals, read, written, read + written, inner.flag)

    def _fusion_output_bytes(self, inst: Instruction, fused: Computation) -> int:
        root = fused.root
        shape = inst.shape
        if not shape.is_tuple:
            return self._output_array_bytes(root, _size_of(inst))
        total = 0
        tuple_root = root if root is not None and root.opcode == "tuple" else None
        for i, sub in enumerate(shape.tuple_shapes):
            if tuple_root is not None and not sub.is_tuple and i < len(tuple_root.operands):
                total += self._output_array_bytes(tuple_root.operands[i], shape_size(sub))
            else:
                total += sum(shape_size(leaf) for leaf in _array_subshapes(sub))
        return total

    @staticmethod
    def _output_array_bytes(producer: Instruction | None, size: int) -> int:
        # A dynamic-update-slice root writes only its update (the rest is updated in place).
        if producer is not None and producer.opcode == "dynamic-update-slice":
            return _size_of(producer.operands[1])
        return size

    def _fusion_operand_bytes(self, param: Instruction) -> int:
        shape = param.shape
        if not shape.is_tuple:
            return self._parameter_read_bytes(param)
        total = 0
        for index in _leaf_indices(shape):
            node = param
            for sub_index in index:
                for user in node.users:
                    if user.opcode == "get-tuple-element" and _tuple_index(user) == sub_index:
                        node = user
                        break
            total += self._parameter_read_bytes(node)
        return total

    def _parameter_read_bytes(self, hlo: Instruction) -> int:
        """XLA's ``FusionParameterReadBytes``: what a fused parameter really costs to read.

        XLA recurses into a nested fusion's parameter; the bytes are a plain sum over the
        parameters reached, so a stack of parameters still to read does the same.
        """
        size = 0
        stack = [hlo]
        while stack:
            param = stack.pop()
            size += self._parameter_own_bytes(param, stack)
        return size

    @staticmethod
    def _nested_fusion_bytes(hlo: Instruction, user: Instruction, nested: list[Instruction]) -> int:
        """The bytes of ``hlo`` read through the nested fusion ``user``: its slices when the
        fusion only slices it, else the fusion's parameter, appended to ``nested`` to be read
        in turn."""
        size = 0
        nested_comp = user.fused_computation
        if nested_comp is None:
            return 0
        nested_root = nested_comp.root
        nested_params = nested_comp.parameters
        for idx, operand in enumerate(user.operands):
            if operand is not hlo or idx >= len(nested_params):
                continue
            nested_param = nested_params[idx]
            simple = nested_root is not None and (
                not nested_root.operands or nested_root.operands[0] is nested_param
            )
            nested_seen = False
            for fusion_user in _unique(user.users):
                fop = fusion_user.opcode
                if simple and fop == "slice":
                    size += _size_of(fusion_user)
                elif simple and fop == "dynamic-slice":
                    if fusion_user.operands and fusion_user.operands[0] is user:
                        size += _size_of(fusion_user)
                    elif not nested_seen:
                        nested_seen = True
                        size += _size_of(user)
                elif simple and fop == "dynamic-update-slice":
                    if fusion_user.operands[0] is not user and not nested_seen:
                        nested_seen = True
                        size += _size_of(user)
                elif not nested_seen:
                    nested_seen = True
                    nested.append(nested_param)
        return size

    @staticmethod
    def _parameter_own_bytes(hlo: Instruction, nested: list[Instruction]) -> int:
        """The bytes ``hlo``'s users read of it, but for nested fusions whose parameter must be
        read in turn: those parameters are appended to ``nested``."""
        size = 0
        seen_trivial_user = False
        hlo_size = _size_of(hlo)
        for user in _unique(hlo.users):
            op = user.opcode
            if op == "fusion":
                size += _Analysis._nested_fusion_bytes(hlo, user, nested)
            elif op == "slice":
                size += _size_of(user)
            elif op == "dynamic-slice":
                if user.operands[0] is hlo:
                    size += _size_of(user)
                elif not seen_trivial_user:
                    seen_trivial_user = True
                    size += hlo_size
            elif op == "dynamic-update-slice":
                if user.operands[0] is not hlo and not seen_trivial_user:
                    seen_trivial_user = True
                    size += hlo_size
            elif op == "broadcast" or op == "reshape":
                size += hlo_size
            elif not seen_trivial_user:
                # Other users are assumed to share one read of the parameter.
                seen_trivial_user = True
                size += hlo_size
        return size


# The fields a sum of costs adds up, in Cost's order, and its flag.
_SUMMED = tuple(
    map(
        operator.attrgetter,
        ("flops", "transcendentals", "bytes_read", "bytes_written", "bytes_accessed"),
    )
)
_FLAG = operator.attrgetter("flag")


def _total(costs: list[Cost]) -> Cost:
    """The sum of ``costs`` (``Cost.__add__`` over them, in order), each field summed in C."""
    flag = ""
    for each in filter(None, map(_FLAG, costs)):
        flag = _join_flags(flag, each)
    flops, trans, read, written, accessed = (sum(map(field, costs)) for field in _SUMMED)
    return Cost(flops, trans, read, written, accessed, flag)


def _unique(items: list) -> list:
    """``items`` without repeats, in order (XLA keeps each user once)."""
    if len(items) < 2:
        return items
    seen: set[int] = set()
    out = []
    for item in items:
        if id(item) not in seen:
            seen.add(id(item))
            out.append(item)
    return out


def _callees_first(
    comp: Computation,
    done: Callable[[Computation], bool],
    opcodes: frozenset[str] = _CALLING_RULES,
    active: set[int] | None = None,
) -> Iterator[Computation]:
    """``comp`` and the computations it reaches through ``opcodes``, each once, every callee
    before its callers (a post-order), leaving out those ``done`` says are done.

    A depth-first walk with an explicit stack of (computation, its callees not yet visited),
    so that nesting depth costs memory, not Python stack frames. A computation reached again
    while its own callees are being walked (it calls itself) is not entered twice. It yields
    as it goes and asks ``done`` of each callee only when it gets there, so what the caller
    works out for one computation can spare the walk the next. ``active``, if given, holds
    the ids of the computations entered and not yet yielded.
    """
    entered: set[int] = {id(comp)}
    if active is None:
        active = set()
    active.add(id(comp))
    stack = [(comp, iter(_callees(comp, opcodes)))]
    try:
        while stack:
            current, callees = stack[-1]
            for callee in callees:
                if id(callee) not in entered and id(callee) not in active and not done(callee):
                    entered.add(id(callee))
                    active.add(id(callee))
                    stack.append((callee, iter(_callees(callee, opcodes))))
                    break
            else:
                stack.pop()
                yield current
                active.discard(id(current))
    finally:
        active.difference_update(entered)


def _callees(comp: Computation, opcodes: frozenset[str]) -> list[Computation]:
    if opcodes.isdisjoint(comp.opcodes()):
        return []  # no body built to learn it calls nothing
    return [
        c for inst in comp.instructions if inst.opcode in opcodes for c in inst.called_computations
    ]


# ------------------------------------------------------------------------------------------
# Public entry points
# ------------------------------------------------------------------------------------------

# One analysis per (module, options), dropped with the module.
_analyses: weakref.WeakKeyDictionary[Module, dict[tuple, _Analysis]] = weakref.WeakKeyDictionary()


def _analysis_for(
    module: Module | None, custom_calls: CustomCallRule = "boundary", trip_counts: bool = False
) -> _Analysis:
    key = (custom_calls, trip_counts)
    if module is None:
        return _Analysis(custom_calls, trip_counts)
    per_module = _analyses.get(module)
    if per_module is None:
        per_module = _analyses[module] = {}
    analysis = per_module.get(key)
    if analysis is None:
        analysis = per_module[key] = _Analysis(custom_calls, trip_counts)
    return analysis


def _module_of(inst: Instruction) -> Module | None:
    comp = inst.computation
    return comp.module if comp is not None else None


def instruction_cost(inst: Instruction, *, custom_calls: CustomCallRule = "boundary") -> Cost:
    """The cost of one instruction under XLA's rules.

    For a ``fusion`` this is the kernel's cost (FLOPs inside, bytes at its boundary); for a
    ``while`` it is one run of its body and condition; for an instruction inside a fused
    computation it is what that op would cost on its own (its FLOPs sum to the fusion's).
    """
    return _analysis_for(_module_of(inst), custom_calls).instruction(inst)


def instruction_costs(
    module: Module, *, custom_calls: CustomCallRule = "boundary"
) -> Callable[[Instruction], Cost]:
    """:func:`instruction_cost` for the instructions of ``module``, as one function: a report
    that prices every op of a module looks the module's cached analysis up once, not per op."""
    return _analysis_for(module, custom_calls).instruction


def body_costs(
    module: Module, *, custom_calls: CustomCallRule = "boundary"
) -> Callable[[Computation], list[Cost]]:
    """For a computation of ``module``, the :func:`instruction_cost` of each of its
    instructions, in order: a report that lists every fused op of a deep model gets one list
    per distinct body (see :mod:`hloscope.hlo.structure`), not one cost per op."""
    return _analysis_for(module, custom_calls).body_costs


def computation_cost(comp: Computation, *, custom_calls: CustomCallRule = "boundary") -> Cost:
    """The sum of the costs of every instruction of ``comp``."""
    return _analysis_for(comp.module, custom_calls).computation(comp)


def control_flow_cost(
    module: Module, cost_of: Callable[[Instruction], Cost], *, trip_counts: bool = False
) -> Cost:
    """The total of ``cost_of`` over what the entry runs, with XLA's control-flow rules.

    ``cost_of`` prices every instruction but ``while``, ``conditional``, ``call`` and
    ``async-start``; those are priced as ``HloCostAnalysis`` prices them: a while is its body
    plus its condition once (``trip_counts=True``: times its known trip count, as
    :attr:`ModuleCost.executed`), a conditional is each quantity's maximum over its branches
    (only one of them runs), a call is its computation. With :func:`instruction_cost` as
    ``cost_of`` this is :func:`module_cost`'s total; with the cost of kernels only (zero for
    ops that just name buffers) it is what a kernel report must add up to. Summing the rows of
    such a report instead would count every branch of a conditional.
    """
    entry = module.entry
    if entry is None:
        return ZERO
    totals: dict[int, Cost] = {}

    def priced(inst: Instruction) -> Cost:
        op = inst.opcode
        if op not in CONTROL_FLOW_OPCODES:
            return cost_of(inst)
        # Callees come first in the order below, so their totals are known (a computation
        # that calls itself, not valid HLO, finds none and counts nothing for the call).
        called = [totals.get(id(c), ZERO) for c in inst.called_computations]
        if op == "while":
            cost = ZERO
            for c in called:
                cost = cost + c
            n = known_trip_count(inst) if trip_counts else None
            return cost.scaled(n) if n is not None else cost
        if op == "conditional":
            return _max_cost(called) if called else ZERO
        return called[0] if called else ZERO

    for comp in _callees_first(entry, lambda c: False, CONTROL_FLOW_OPCODES):
        totals[id(comp)] = _total(list(map(priced, comp.instructions)))
    return totals[id(entry)]


@gc_paused
def module_cost(module: Module, *, custom_calls: CustomCallRule = "boundary") -> ModuleCost:
    """Totals for ``module`` as XLA's ``HloCostAnalysis`` computes them on the CPU backend.

    ``custom_calls="xla"`` prices each custom-call as XLA does (-1 FLOPs, -1 bytes: unknown)
    instead of its boundary bytes.
    """
    analysis = _analysis_for(module, custom_calls)
    entry = module.entry
    total = analysis.computation(entry) if entry is not None else ZERO
    comps = kernel_computations(module)
    per_comp = {c.name: analysis.computation(c) for c in comps}
    flagged: list[FlaggedOp] = []
    unknown_trips: list[str] = []
    # Every op these computations reach is costed by now: with no flag among them, only the
    # loops need a look (walking every fused op of a 400k-op module costs a quarter second).
    for comp in comps:
        if not analysis.flagged and "while" not in comp.opcodes():
            continue
        for inst in comp.instructions:
            op = inst.opcode
            if op == "while" and known_trip_count(inst) is None:
                unknown_trips.append(inst.name)
            if op == "fusion":
                for sub in _fused_instructions(inst):
                    c = analysis.instruction(sub)
                    if c.flag and sub.opcode != "fusion":
                        flagged.append(FlaggedOp(sub.name, sub.opcode, comp.name, c.flag))
                continue
            if op in CONTROL_FLOW_OPCODES:
                continue
            c = analysis.instruction(inst)
            if c.flag:
                flagged.append(FlaggedOp(inst.name, op, comp.name, c.flag))
    executed = total
    if entry is not None and any(i.opcode == "while" for c in comps for i in c.instructions):
        executed = _analysis_for(module, custom_calls, trip_counts=True).computation(entry)
    return ModuleCost(module.name, total, executed, per_comp, flagged, unknown_trips)


def _fused_instructions(fusion: Instruction) -> list[Instruction]:
    """Every instruction inside ``fusion``, a nested fusion's right after that fusion."""
    out: list[Instruction] = []
    fused = fusion.fused_computation
    stack = [iter(fused.instructions)] if fused is not None else []
    while stack:
        sub = next(stack[-1], None)
        if sub is None:
            stack.pop()
            continue
        out.append(sub)
        nested = sub.fused_computation
        if nested is not None:
            stack.append(iter(nested.instructions))
    return out

"""A cost model for HLO: FLOPs, transcendentals and bytes, per instruction, kernel and module.

The rules are XLA's own ``HloCostAnalysis`` (``xla/service/hlo_cost_analysis.cc``) with the CPU
client's shape-size function (``CpuExecutable::ShapeSizeBytes``), so that :func:`module_cost`
on an optimized module agrees with what ``jax.jit(f).lower(x).compile().cost_analysis()``
reports. What XLA counts, and therefore what this module counts:

FLOPs
    Elementwise ops: one per output element (``convert``, ``compare``, ``select`` and
    ``clamp`` included). ``dot``: ``2 * output elements * contracted size`` (batch dimensions
    are in the output). ``convolution``: ``2 * (input features / feature_group_count) *
    output features * (batch / batch_group_count) * valid window positions``, where the valid
    positions skip padding and dilation holes exactly as XLA's loop does. ``reduce``,
    ``reduce-window``, ``select-and-scatter``, ``scatter`` and ``map``: the FLOPs of their
    scalar computation times the number of times it is applied. ``sort``: ``n * ceil(log2 n)``.
    ``fft``: ``8 * prod(floor(log2 fft_length)) * elements``. ``all-reduce``: one per output
    element. Data movement (``copy``, ``transpose``, ``slice``, ``broadcast``...) costs none.
Transcendentals
    Counted apart from FLOPs, one per output element of ``exponential``, ``log``, ``tanh``,
    ``logistic``, ``power``, ``sqrt``, ``rsqrt``, ``cbrt``, ``sine``, ``cosine``, ``tan``,
    ``atan2``, ``erf``, the inverse and hyperbolic trigonometric functions, and ``rng``.
Bytes
    An instruction reads its operands and writes its output (``bytes_read`` +
    ``bytes_written`` = ``bytes_accessed``). Exceptions: ``parameter``, ``constant``,
    ``get-tuple-element``, ``bitcast``, ``after-all``, ``add-dependency``, ``domain`` and a
    ``transpose`` that is a bitcast in its layouts touch nothing; ``tuple`` writes only its
    table of 8-byte pointers; ``slice``, ``dynamic-slice`` and ``gather`` read only as much of
    the sliced operand as they output; ``dynamic-update-slice`` and ``scatter`` count only the
    updated part (the operand is updated in place). A tuple-shaped result counts the arrays
    it holds (a ``sort`` of two arrays writes both), but a tuple-shaped *operand* counts only
    its table of 8-byte pointers, as does the result of ``tuple`` itself.
Fusions (kernel boundaries)
    A fusion counts its FLOPs and transcendentals over the fused computation, but bytes only
    at its boundary: each array it outputs (a ``dynamic-update-slice`` root counts only its
    update), each fused constant with more than one element, and for each operand what the
    fused computation actually reads: the whole operand once, except that a parameter read
    only through ``slice``/``dynamic-slice`` counts the slices, and ``broadcast`` and
    ``reshape`` users each count the whole operand again (XLA's rule).
Control flow
    ``while`` costs its body plus its condition **once**: XLA does not multiply by the trip
    count. ``call`` and ``async-start`` cost their computation; ``conditional`` costs, for each
    quantity separately, the maximum over its branches. :attr:`ModuleCost.executed` gives the
    totals with while bodies multiplied by their ``known_trip_count``, an estimate XLA does not
    make. :func:`placements` says where each computation runs (the entry, a loop's body
    ``×n``, a branch) and :func:`control_flow_cost` applies these rules to any per-instruction
    cost, so that a report counting only kernels still adds up the way XLA does.

Differences from XLA (documented and tested):

* ``custom-call``: XLA marks the cost unknown by adding -1 FLOPs and -1 bytes. Here a custom
  call costs 0 FLOPs and its boundary bytes (operands read, result written) and is listed in
  :attr:`ModuleCost.flagged`. ``module_cost(module, custom_calls="xla")`` reproduces XLA's -1s.
* Opcodes this XLA does not know (from newer dumps) cost their boundary bytes and 0 FLOPs and
  are flagged; XLA's parser would reject them.
* XLA sums in 32-bit floats; totals here are exact integers (relative difference < 1e-6).
* Text that parses but breaks an op's invariants (a ``dot`` contracting a dimension its
  operand lacks, convolution ``dim_labels`` of another rank than the shapes, a ``transpose``
  without an operand) costs 0, is flagged, and raises a :class:`CostWarning` naming the
  instruction and its line. XLA's analysis reads out of bounds there; no rule can be right.

Nothing here recurses on nesting: computations are costed callees first, in an order worked
out with an explicit stack, so a chain of ten thousand nested calls, loops or fusions costs
what its shallow equivalent does, in time linear in its size.
"""

from __future__ import annotations

import warnings
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from math import gcd
from typing import TYPE_CHECKING, Literal

from ..errors import HloscopeError
from ..hlo._gc import gc_paused
from ..hlo.attributes import ConvDimLabels, WindowDimension
from ..hlo.opcodes import OPCODES, category_of
from ..hlo.shape import Shape
from ..hlo.structure import structure_id

if TYPE_CHECKING:  # pragma: no cover
    from ..hlo.model import Computation, Instruction, Module

__all__ = [
    "Cost",
    "CostWarning",
    "FlaggedOp",
    "ModuleCost",
    "module_cost",
    "instruction_cost",
    "instruction_costs",
    "body_costs",
    "computation_cost",
    "control_flow_cost",
    "kernel_computations",
    "known_trip_count",
    "placements",
    "Placement",
    "Role",
    "Step",
    "shape_size",
    "TRANSCENDENTAL_OPCODES",
    "ZERO_COST_OPCODES",
]

POINTER_SIZE = 8  # bytes per tuple element (XLA's tuple index table on CPU)
FMA_FLOPS = 2  # a multiply-add counts as two FLOPs
IMMEDIATE_CONSTANT_MAX_ELEMENTS = 1  # larger fused constants are read from memory

TRANSCENDENTAL_OPCODES: frozenset[str] = frozenset(
    {
        "exponential",
        "exponential-minus-one",
        "log",
        "log-plus-one",
        "logistic",
        "power",
        "sqrt",
        "cbrt",
        "rsqrt",
        "tanh",
        "sine",
        "cosine",
        "tan",
        "atan2",
        "erf",
        "acos",
        "acosh",
        "asin",
        "asinh",
        "atanh",
        "cosh",
        "sinh",
    }
)

# Instructions that alias or name buffers: no FLOPs and no bytes (XLA's Handle* zero them).
ZERO_COST_OPCODES: frozenset[str] = frozenset(
    {
        "parameter",
        "constant",
        "get-tuple-element",
        "bitcast",
        "domain",
        "after-all",
        "add-dependency",
    }
)

# Elementwise-category opcodes that XLA does not price as one FLOP per element.
_NOT_ELEMENTWISE_FLOPS = frozenset({"map"})

# Opcodes XLA prices at one FLOP (or transcendental) per output element.
_ONE_FLOP_PER_ELEMENT = frozenset(
    op for op, info in OPCODES.items() if info.category == "elementwise"
).difference(_NOT_ELEMENTWISE_FLOPS)

# Opcodes XLA prices with the default rule (bytes of operands and result, no FLOPs).
_DEFAULT_OPCODES = frozenset(
    {
        "copy",
        "reverse",
        "concatenate",
        "pad",
        "reshape",
        "dynamic-reshape",
        "broadcast",
        "iota",
        "get-dimension-size",
        "set-dimension-size",
        "copy-start",
        "copy-done",
        "send",
        "send-done",
        "recv",
        "recv-done",
        "all-gather",
        "all-gather-start",
        "all-gather-done",
        "all-to-all",
        "ragged-all-to-all",
        "reduce-scatter",
        "collective-permute",
        "collective-permute-start",
        "collective-permute-done",
        "collective-broadcast",
        "all-reduce-done",
        "async-update",
        "async-done",
        "partition-id",
        "replica-id",
        "opt-barrier",
        "rng-get-and-update-state",
        "batch-norm-training",
        "batch-norm-inference",
        "batch-norm-grad",
        "topk",
    }
)


# ------------------------------------------------------------------------------------------
# Results
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cost:
    """What one instruction (or a sum of them) costs.

    ``bytes_accessed`` is ``bytes_read + bytes_written`` except for a ``conditional``, whose
    three byte counts are each the maximum over its branches, as XLA computes them.
    ``flag`` is empty when the numbers follow a known rule, else says why they are a guess.
    """

    flops: int = 0
    transcendentals: int = 0
    bytes_read: int = 0
    bytes_written: int = 0
    bytes_accessed: int = 0
    flag: str = ""

    @staticmethod
    def of(
        flops: int = 0, transcendentals: int = 0, read: int = 0, written: int = 0, flag: str = ""
    ) -> Cost:
        return Cost(flops, transcendentals, read, written, read + written, flag)

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            self.flops + other.flops,
            self.transcendentals + other.transcendentals,
            self.bytes_read + other.bytes_read,
            self.bytes_written + other.bytes_written,
            self.bytes_accessed + other.bytes_accessed,
            _join_flags(self.flag, other.flag),
        )

    def scaled(self, factor: int) -> Cost:
        return Cost(
            self.flops * factor,
            self.transcendentals * factor,
            self.bytes_read * factor,
            self.bytes_written * factor,
            self.bytes_accessed * factor,
            self.flag,
        )

    @property
    def arithmetic_intensity(self) -> float | None:
        """FLOPs (transcendentals included) per byte accessed; ``None`` when no bytes move."""
        if self.bytes_accessed <= 0:
            return None
        return (self.flops + self.transcendentals) / self.bytes_accessed

    def to_dict(self) -> dict:
        return {
            "flops": self.flops,
            "transcendentals": self.transcendentals,
            "bytes_read": self.bytes_read,
            "bytes_written": self.bytes_written,
            "bytes_accessed": self.bytes_accessed,
            "arithmetic_intensity": self.arithmetic_intensity,
            "flag": self.flag,
        }


ZERO = Cost()


def _join_flags(a: str, b: str) -> str:
    if not a:
        return b
    if not b or b == a:
        return a
    return a + "; " + b


def _max_cost(costs: list[Cost]) -> Cost:
    """Each quantity's maximum over ``costs`` (XLA's rule for conditional branches)."""
    flag = ""
    for c in costs:
        flag = _join_flags(flag, c.flag)
    return Cost(
        max(c.flops for c in costs),
        max(c.transcendentals for c in costs),
        max(c.bytes_read for c in costs),
        max(c.bytes_written for c in costs),
        max(c.bytes_accessed for c in costs),
        flag,
    )


@dataclass(frozen=True, slots=True)
class FlaggedOp:
    """An instruction whose cost is a guess (custom-call, unknown opcode)."""

    name: str
    opcode: str
    computation: str
    reason: str


@dataclass(slots=True)
class ModuleCost:
    """Totals for a module under XLA's rules, plus what they rest on.

    ``total`` is what XLA reports for the module (entry computation, loops counted once).
    ``computations`` holds the cost of each computation that runs kernels (the entry and the
    bodies of ``while``/``conditional``/``call``), each summed once. ``executed`` multiplies
    while bodies by their ``known_trip_count`` where XLA recorded one (loops without one count
    once and appear in ``unknown_trip_counts``).
    """

    module: str
    total: Cost
    executed: Cost
    computations: dict[str, Cost] = field(default_factory=dict)
    flagged: list[FlaggedOp] = field(default_factory=list)
    unknown_trip_counts: list[str] = field(default_factory=list)

    @property
    def flops(self) -> int:
        return self.total.flops

    @property
    def transcendentals(self) -> int:
        return self.total.transcendentals

    @property
    def bytes_accessed(self) -> int:
        return self.total.bytes_accessed

    def to_dict(self) -> dict:
        return {
            "module": self.module,
            "total": self.total.to_dict(),
            "executed": self.executed.to_dict(),
            "computations": {k: v.to_dict() for k, v in self.computations.items()},
            "flagged": [
                {
                    "name": f.name,
                    "opcode": f.opcode,
                    "computation": f.computation,
                    "reason": f.reason,
                }
                for f in self.flagged
            ],
            "unknown_trip_counts": list(self.unknown_trip_counts),
        }


class CostWarning(UserWarning):
    """An instruction the parser accepted but no cost rule can price: it is costed as zero.

    The message names the instruction, its computation and its line, and says what is wrong
    (``dot.3 (computation main, line 7): lhs_contracting_dims {2} but lhs has rank 2``). The
    cost is also flagged, so it appears in :attr:`ModuleCost.flagged` and the report's flags.
    """


class _Malformed(Exception):
    """Raised by a cost rule that finds an instruction breaking its op's invariants."""


def _malformed_cost(inst: Instruction, reason: str) -> Cost:
    """Warn about ``inst`` (see :class:`CostWarning`) and give the zero, flagged cost."""
    comp = inst.computation
    where = (
        f"computation {comp.name}, line {inst.line}" if comp is not None else f"line {inst.line}"
    )
    warnings.warn(f"{inst.name} ({where}): {reason}; costed as 0", CostWarning, stacklevel=2)
    return Cost(flag=f"malformed {inst.opcode}: {reason}")


# ------------------------------------------------------------------------------------------
# Shapes
# ------------------------------------------------------------------------------------------

_size_cache: dict[str, int] = {}
_elements_cache: dict[str, int] = {}
_output_size_cache: dict[str, int] = {}


def shape_size(shape: Shape) -> int:
    """Bytes XLA's CPU backend sizes a shape at (``CpuExecutable::ShapeSizeBytes``).

    Arrays: their data (sub-byte types one byte per element unless the layout packs them with
    ``E(n)``), plus 4 bytes per dimension for a dynamic shape's size metadata. Tuples: their
    pointer table, 8 bytes per element (not the elements). Tokens: 0. Opaque: one pointer.
    """
    if shape.is_tuple:
        return POINTER_SIZE * len(shape.tuple_shapes)
    if shape.is_buffer:
        return shape_size(shape.tuple_shapes[0]) if shape.tuple_shapes else 0
    kind = shape.dtype.kind
    if kind == "token":
        return 0
    if kind == "opaque":
        return POINTER_SIZE
    size = shape.byte_size or 0
    if any(shape.dynamic_dims):
        size += 4 * len(shape.dims)
    return size


# The caches are keyed by the shape as written; an instruction whose text leaves its shape out
# (the shape inferred) has no key and is sized on its own.


def _size_of(inst: Instruction) -> int:
    text = inst._shape_text
    size = _size_cache.get(text)
    if size is None:
        size = shape_size(inst.shape)
        if text:
            _size_cache[text] = size
    return size


def _output_size_of(inst: Instruction) -> int:
    """Bytes an instruction writes by default: a tuple result counts its array leaves."""
    text = inst._shape_text
    size = _output_size_cache.get(text)
    if size is None:
        shape = inst.shape
        if shape.is_tuple:
            size = sum(shape_size(leaf) for leaf in shape.leaves() if not leaf.is_tuple)
        else:
            size = shape_size(shape)
        if text:
            _output_size_cache[text] = size
    return size


def _elements(shape: Shape) -> int:
    """``ShapeUtil::ElementsIn`` for an array (unknown ``?`` dimensions count as 0)."""
    n = shape.element_count
    return n or 0


def _elements_of(inst: Instruction) -> int:
    text = inst._shape_text
    n = _elements_cache.get(text)
    if n is None:
        n = _elements(inst.shape)
        if text:
            _elements_cache[text] = n
    return n


# ------------------------------------------------------------------------------------------
# Attributes (typed values from the model, decoded once per instruction by hloscope.hlo)
# ------------------------------------------------------------------------------------------

# A convolution or reduce-window without a window reads one position per output element.
_NO_WINDOW: tuple[WindowDimension, ...] = (WindowDimension(size=1),)


def _window(inst: Instruction) -> tuple[WindowDimension, ...]:
    """The dimensions of ``window={...}`` (``()`` when the attribute is absent)."""
    window = inst.attrs.get("window")
    return window.dimensions if window is not None else ()


def _ints(inst: Instruction, name: str) -> tuple[int, ...]:
    """An int-list attribute (``dimensions={1,0}``); ``()`` when absent."""
    return inst.attrs.get(name) or ()


def _prod(values: Iterable[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


# ------------------------------------------------------------------------------------------
# The analysis
# ------------------------------------------------------------------------------------------

CustomCallRule = Literal["boundary", "xla"]


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
        return self._known(comp) is not None

    def body_costs(self, comp: Computation) -> list[Cost]:
        """The cost of each instruction of ``comp``, in order; one list per distinct body."""
        sid = structure_id(comp)
        costs = self._alike_bodies.get(sid)
        if costs is None:
            costs = list(map(self.instruction, comp.instructions))
            if not any(c.flag for c in costs):
                self._alike_bodies[sid] = costs
        return costs

    def _sum(self, comp: Computation) -> Cost:
        flops = trans = read = written = accessed = 0
        flag = ""
        for inst in comp.instructions:
            c = self.instruction(inst)
            flops += c.flops
            trans += c.transcendentals
            read += c.bytes_read
            written += c.bytes_written
            accessed += c.bytes_accessed
            if c.flag:
                flag = _join_flags(flag, c.flag)
        return Cost(flops, trans, read, written, accessed, flag)

    def _sub_ops(self, inst: Instruction, index: int = 0) -> Cost:
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

    def _default_read(self, inst: Instruction) -> int:
        return sum(map(_size_of, inst.operands))

    def _default(self, inst: Instruction, flops: int = 0, trans: int = 0, flag: str = "") -> Cost:
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
        if op == "fusion":
            return self._pooled(self._fusion(inst))
        handler = _HANDLERS.get(op)
        if handler is not None:
            return self._pooled(handler(self, inst))
        if category_of(op) == "unknown":
            return self._default(inst, flag=f"unknown opcode {op!r}: boundary bytes, 0 FLOPs")
        # Known to the opcode table but without a rule in XLA's analysis (legacy ops).
        return self._default(inst)

    # --- control flow ---------------------------------------------------------------------
    def _while(self, inst: Instruction) -> Cost:
        cost = ZERO
        for called in inst.called_computations:  # the condition and the body
            cost = cost + self.computation(called)
        if self.trip_counts:
            n = known_trip_count(inst)
            if n is not None:
                cost = cost.scaled(n)
        return cost

    def _call(self, inst: Instruction) -> Cost:
        called = inst.called_computations
        return self.computation(called[0]) if called else ZERO

    def _conditional(self, inst: Instruction) -> Cost:
        called = inst.called_computations
        if not called:
            return ZERO
        return _max_cost([self.computation(c) for c in called])

    # --- fusions --------------------------------------------------------------------------
    def _fusion(self, inst: Instruction) -> Cost:
        fused = inst.fused_computation
        if fused is None:
            return self._default(inst, flag="fusion without a fused computation")
        # What the rules below read: the fusion's shape and kind and its fused body.
        key = (inst.shape_text, inst.fusion_kind or "", structure_id(fused))
        cost = self._alike_fusions.get(key)
        if cost is None:
            cost = self._fusion_of(inst, fused)
            if not cost.flag and key[0]:
                self._alike_fusions[key] = cost
        return cost

    def _fusion_of(self, inst: Instruction, fused: Computation) -> Cost:
        if inst.fusion_kind == "kCustom":
            # XLA prices a custom fusion holding a gather or scatter as that op alone.
            for sub in fused.instructions:
                if sub.opcode == "gather":
                    return _gather(self, sub)
                if sub.opcode == "scatter":
                    return _scatter(self, sub)
        inner = self.computation(fused)
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
        root_is_tuple = root is not None and root.opcode == "tuple"
        for i, sub in enumerate(shape.tuple_shapes):
            if root_is_tuple and not sub.is_tuple and i < len(root.operands):
                total += self._output_array_bytes(root.operands[i], shape_size(sub))
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
    def _parameter_own_bytes(hlo: Instruction, nested: list[Instruction]) -> int:
        """The bytes ``hlo``'s users read of it, but for nested fusions whose parameter must be
        read in turn: those parameters are appended to ``nested``."""
        size = 0
        seen_trivial_user = False
        hlo_size = _size_of(hlo)
        for user in _unique(hlo.users):
            op = user.opcode
            if op == "fusion":
                nested_comp = user.fused_computation
                if nested_comp is None:
                    continue
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

    # --- custom calls ---------------------------------------------------------------------
    def _custom_call(self, inst: Instruction) -> Cost:
        target = inst.attrs.get("custom_call_target", "")
        if self.custom_calls == "xla":
            return Cost(-1, 0, 0, -1, -1, f"custom-call {target}: cost unknown to XLA (-1)")
        return self._default(
            inst, flag=f"custom-call {target}: cost unknown (boundary bytes, 0 FLOPs)"
        )


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


def _array_subshapes(shape: Shape) -> list[Shape]:
    """The arrays of ``shape``, depth first (a tuple's elements in order)."""
    return [leaf for _, leaf in _leaves(shape) if leaf.is_array]


def _leaf_indices(shape: Shape) -> list[tuple[int, ...]]:
    """The shape index of each non-tuple leaf of ``shape``, depth first (``[()]`` for an
    array)."""
    return [index for index, _ in _leaves(shape)]


def _leaves(shape: Shape) -> list[tuple[tuple[int, ...], Shape]]:
    # An explicit stack (elements pushed in reverse, so popped in order): tuples nest as
    # deeply as the text does.
    out: list[tuple[tuple[int, ...], Shape]] = []
    stack: list[tuple[tuple[int, ...], Shape]] = [((), shape)]
    while stack:
        index, sub = stack.pop()
        if sub.is_tuple:
            elements = sub.tuple_shapes
            stack.extend((index + (i,), elements[i]) for i in range(len(elements) - 1, -1, -1))
        else:
            out.append((index, sub))
    return out


# Opcodes whose cost rules ask for the cost of a computation they call.
_CALLING_RULES = frozenset(
    {
        "fusion",
        "while",
        "call",
        "conditional",
        "async-start",
        "reduce",
        "reduce-window",
        "select-and-scatter",
        "scatter",
        "map",
    }
)


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
    return [
        c for inst in comp.instructions if inst.opcode in opcodes for c in inst.called_computations
    ]


def _tuple_index(inst: Instruction) -> int:
    return inst.attrs.get("index", -1)


def known_trip_count(inst: Instruction) -> int | None:
    """The ``known_trip_count`` XLA recorded in a while loop's backend config, if any.

    XLA writes ``backend_config={"known_trip_count":{"n":"3"}}`` (a proto int64, hence the
    string); the model decodes backend configs that are JSON objects to dicts.
    """
    config = inst.attrs.get("backend_config")
    if not isinstance(config, dict):
        return None
    trip = config.get("known_trip_count")
    n = trip.get("n") if isinstance(trip, dict) else None
    try:
        return int(n) if n is not None else None
    except (TypeError, ValueError):  # not a count: treat the loop as unknown
        return None


# --- per-opcode rules ---------------------------------------------------------------------


def _dot(a: _Analysis, inst: Instruction) -> Cost:
    return a._default(inst, flops=FMA_FLOPS * _elements_of(inst) * _contracted_size(inst))


def _ragged_dot(a: _Analysis, inst: Instruction) -> Cost:
    width = _contracted_size(inst)
    dims = list(inst.shape.dims)
    # XLA deletes dimension i of the result for each of the rhs group dimensions.
    for i in range(len(_ints(inst, "rhs_group_dims"))):
        if i < len(dims):
            del dims[i]
    out = _prod(d or 0 for d in dims)
    return a._default(inst, flops=FMA_FLOPS * out * width)


def _contracted_size(inst: Instruction) -> int:
    """The product of the lhs dimensions a dot contracts (``lhs_contracting_dims``)."""
    if len(inst.operands) < 2:
        raise _Malformed(f"{inst.opcode} needs two operands, has {len(inst.operands)}")
    dims = inst.operands[0].shape.dims
    contracting = _ints(inst, "lhs_contracting_dims")
    bad = [d for d in contracting if not 0 <= d < len(dims)]
    if bad:
        listed = ",".join(map(str, contracting))
        raise _Malformed(f"lhs_contracting_dims={{{listed}}} but lhs has rank {len(dims)}")
    return _prod(dims[d] or 0 for d in contracting)


def _convolution(a: _Analysis, inst: Instruction) -> Cost:
    return a._default(inst, flops=convolution_flops(inst))


def convolution_flops(inst: Instruction) -> int:
    """XLA's ``GetConvolutionFlops``: 2 FLOPs per multiply-add over valid window positions.

    ``2 * (input features / feature groups) * output features * (batch / batch groups)``
    times the product over spatial dimensions of :func:`valid_window_positions`. Raises
    ``_Malformed`` when the labels, window and shapes do not fit together.
    """
    labels = inst.attrs.get("dim_labels")
    if labels is None:
        return 0
    if len(inst.operands) < 2:
        raise _Malformed(f"convolution needs two operands, has {len(inst.operands)}")
    lhs_dims = inst.operands[0].shape.dims
    rhs_dims = inst.operands[1].shape.dims
    out_dims = inst.shape.dims
    _check_labels(labels, len(lhs_dims), len(rhs_dims), len(out_dims))
    input_feature = lhs_dims[labels.input_feature_dimension] or 0
    output_feature = out_dims[labels.output_feature_dimension] or 0
    batch = lhs_dims[labels.input_batch_dimension] or 0
    window = _window(inst)
    if not window:
        window, limits = _NO_WINDOW, [(1, 1, 1)]
    else:
        if len(window) != labels.num_spatial_dimensions:
            raise _Malformed(
                f"window has {len(window)} dimensions but dim_labels "
                f"{labels.num_spatial_dimensions} spatial ones"
            )
        # (input, kernel, output) extent of each spatial dimension, in window order.
        spatial = zip(
            labels.input_spatial_dimensions,
            labels.kernel_spatial_dimensions,
            labels.output_spatial_dimensions,
        )
        limits = [(lhs_dims[i] or 0, rhs_dims[k] or 0, out_dims[o] or 0) for i, k, o in spatial]
    positions = 1
    for w, (input_limit, kernel_limit, output_limit) in zip(window, limits):
        positions *= valid_window_positions(w, input_limit, kernel_limit, output_limit)
    feature_groups = inst.attrs.get("feature_group_count", 1)
    batch_groups = inst.attrs.get("batch_group_count", 1)
    if feature_groups < 1 or batch_groups < 1:
        raise _Malformed(f"group counts {feature_groups} and {batch_groups} must be positive")
    fma = (input_feature // feature_groups) * output_feature * (batch // batch_groups) * positions
    return fma * FMA_FLOPS


def _check_labels(labels: ConvDimLabels, lhs_rank: int, rhs_rank: int, out_rank: int) -> None:
    """Raise ``_Malformed`` unless ``dim_labels`` describe operands of these ranks: one label
    per dimension, a batch and a feature dimension, the same spatial digits ``0..n-1`` in
    each (what XLA's verifier checks and its parser does not)."""
    for what, text, rank, needed in (
        ("input", labels.input, lhs_rank, "bf"),
        ("kernel", labels.kernel, rhs_rank, "io"),
        ("output", labels.output, out_rank, "bf"),
    ):
        if len(text) != rank:
            raise _Malformed(f"dim_labels {what} {text!r} for an operand of rank {rank}")
        if any(text.count(ch) != 1 for ch in needed):
            raise _Malformed(f"dim_labels {what} {text!r} needs one each of {needed!r}")
    spatial = "".join(str(k) for k in range(labels.num_spatial_dimensions))
    for text in (labels.input, labels.kernel, labels.output):
        if sorted(ch for ch in text if ch.isdigit()) != sorted(spatial):
            raise _Malformed(f"dim_labels {labels} do not share spatial dimensions 0..")


def valid_window_positions(
    w: WindowDimension, input_limit: int, kernel_limit: int, output_limit: int
) -> int:
    """How many (output position, kernel position) pairs of one spatial dimension read input.

    XLA's convolution handler counts them with a loop over both: the pair ``(o, k)`` reads
    the input at ``u = o * stride - padding_low + k * window_dilation`` in the padded, dilated
    input, which is real data when ``base_dilation`` divides ``u`` and ``u / base_dilation``
    is inside the input (``base_dilation`` is XLA's ``lhs_dilate``, holes in the input;
    ``window_dilation`` its ``rhs_dilate``, holes in the kernel). For a fixed ``k`` the valid
    ``o`` are the members of an arithmetic progression that fall in an interval, which
    :func:`_progression_hits` counts with a division; so this loops over the kernel or the
    output positions, whichever are fewer, not over their product. (XLA's own shortcuts, for
    stride 1 without input dilation and for two degenerate shapes, are special cases.)
    """
    if w.base_dilation >= 1:
        modulus, top = w.base_dilation, w.base_dilation * (input_limit - 1)
    else:
        # XLA tests ``u == (u / d) * d`` with ``u / d`` taken as ``u`` when ``d <= 1``: for a
        # dilation below 1 only ``u = 0`` passes.
        modulus, top = 1, 0 if input_limit >= 1 else -1
    if top < 0 or kernel_limit <= 0 or output_limit <= 0:
        return 0
    if kernel_limit <= output_limit:  # per kernel position: o steps the input by the stride
        outer, step, stride_outer, count = kernel_limit, w.stride, w.window_dilation, output_limit
    else:  # per output position: k steps it by the window dilation
        outer, step, stride_outer, count = output_limit, w.window_dilation, w.stride, kernel_limit
    if outer > _VECTORISE_FROM and step != 0:
        counted = _progression_hits_summed(
            step, count, modulus, top, outer, stride_outer, -w.padding_low
        )
        if counted is not None:
            return counted
    hits = _progression_hits(step, count, modulus, top)
    return sum(hits(i * stride_outer - w.padding_low) for i in range(outer))


#: From how many outer positions :func:`valid_window_positions` counts with numpy (one
#: spatial dimension of a million window and output positions: 1 s in Python, 20 ms in numpy).
_VECTORISE_FROM = 4096
_INT64_SAFE = 2**62


def _progression_hits_summed(
    step: int, count: int, modulus: int, top: int, outer: int, stride_outer: int, base: int
) -> int | None:
    """``sum(hits(base + i * stride_outer) for i in range(outer))`` of
    :func:`_progression_hits`, in numpy; None when a value could leave int64 (the caller then
    loops in Python, where integers do not overflow)."""
    extent = abs(base) + abs(stride_outer) * outer + abs(step) * count + abs(top) + modulus
    if extent * max(abs(step), modulus, 1) >= _INT64_SAFE:
        return None
    import numpy as np

    shift = 0
    if step < 0:  # as in _progression_hits: walk the progression backwards
        step, shift = -step, step * (count - 1)
    g = gcd(step, modulus)
    period = modulus // g
    inverse = pow(step // g, -1, period) if period > 1 else 0
    offset = np.arange(outer, dtype=np.int64) * stride_outer + (base + shift)
    lo = np.maximum(0, -(offset // step))  # numpy's // floors, as Python's does
    hi = np.minimum(count - 1, (top - offset) // step)
    valid = (lo <= hi) & (offset % g == 0)
    first = ((-offset) // g) * inverse % period
    counts = (hi - first) // period - (lo - 1 - first) // period
    return int(counts[valid].sum())


def _progression_hits(step: int, count: int, modulus: int, top: int) -> Callable[[int], int]:
    """``hits(offset)``: how many ``t`` in ``[0, count)`` put ``x = step * t + offset`` in
    ``[0, top]`` with ``modulus`` dividing ``x``. Everything but the offset is fixed, so the
    modular inverse is worked out once."""
    if step == 0:
        return lambda offset: count if 0 <= offset <= top and offset % modulus == 0 else 0
    shift = 0
    if step < 0:  # walk the progression backwards: t -> count - 1 - t
        step, shift = -step, step * (count - 1)
    g = gcd(step, modulus)
    period = modulus // g  # the t that solve step * t = -offset (mod modulus) recur this often
    inverse = pow(step // g, -1, period) if period > 1 else 0
    last = count - 1

    def hits(offset: int) -> int:
        offset += shift
        lo = max(0, -(offset // step))  # the first t with x >= 0: ceil(-offset / step)
        hi = min(last, (top - offset) // step)  # the last t with x <= top
        if lo > hi or offset % g:
            return 0
        first = (-offset // g) * inverse % period  # the solutions are first + period * n
        return (hi - first) // period - (lo - 1 - first) // period

    return hits


def _reduce(a: _Analysis, inst: Instruction) -> Cost:
    sub = a._sub_ops(inst)
    shape = inst.shape
    out = shape.tuple_shapes[0] if shape.is_tuple else shape
    count = _elements_of(inst.operands[0]) - _elements(out)
    return a._default(inst, flops=sub.flops * count, trans=sub.transcendentals * count)


def _reduce_window(a: _Analysis, inst: Instruction) -> Cost:
    sub = a._sub_ops(inst)
    window = _window(inst)
    shape = inst.shape
    out = shape.tuple_shapes[0] if shape.is_tuple else shape
    out_elements = _elements(out)
    window_elements = _prod(w.size for w in window)
    count = (window_elements - 1) * out_elements
    # A reduce-window that is a reduce followed by a broadcast along one dimension.
    reduced = [w for w in window if w.size != 1]
    padded = [w for w in window if w.padding_low != 0 or w.padding_high != 0]
    if len(reduced) == 1 and len(padded) == 1 and not shape.is_tuple:
        for dim, w in enumerate(window):
            if (
                w.size != 1
                and w.padding_low != 0
                and w.padding_high != 0
                and w.padding_low == w.padding_high
                and w.size == 2 * w.padding_low + 1
            ):
                extent = shape.dims[dim] or 0
                if w.padding_low == extent - 1 and extent > 0:
                    count = out_elements // extent + (extent - 1)
                break
    return a._default(inst, flops=sub.flops * count, trans=sub.transcendentals * count)


def _select_and_scatter(a: _Analysis, inst: Instruction) -> Cost:
    called = inst.called_computations  # [select, scatter], in attribute order
    select = called[0] if called else None
    scatter = called[1] if len(called) > 1 else None
    source = _elements_of(inst.operands[1])
    window = _prod(w.size for w in _window(inst))
    selects = source * (window - 1)
    flops = trans = 0
    if select is not None:
        s = a.computation(select)
        flops += s.flops * selects
        trans += s.transcendentals * selects
    if scatter is not None:
        s = a.computation(scatter)
        flops += s.flops * source
        trans += s.transcendentals * source
    return a._default(inst, flops=flops, trans=trans)


def _map(a: _Analysis, inst: Instruction) -> Cost:
    sub = a._sub_ops(inst)
    n = _elements_of(inst)
    return a._default(inst, flops=sub.flops * n, trans=sub.transcendentals * n)


def _sort(a: _Analysis, inst: Instruction) -> Cost:
    n = _elements_of(inst.operands[0])
    log = (n - 1).bit_length() if n > 0 else 0
    return a._default(inst, flops=n * log)


def _fft(a: _Analysis, inst: Instruction) -> Cost:
    shape = inst.operands[0].shape
    if shape.is_tuple:
        shape = shape.tuple_shapes[0]
    factors = 1
    for length in _ints(inst, "fft_length"):
        factors *= length.bit_length() - 1 if length > 0 else -1
    return a._default(inst, flops=FMA_FLOPS * 4 * factors * _elements(shape))


def _tuple(a: _Analysis, inst: Instruction) -> Cost:
    return Cost.of(written=_size_of(inst))


def _slice(a: _Analysis, inst: Instruction) -> Cost:
    out = _size_of(inst)
    return Cost.of(read=out, written=out)


def _dynamic_slice(a: _Analysis, inst: Instruction) -> Cost:
    out = _size_of(inst)
    index = _size_of(inst.operands[1]) if len(inst.operands) > 1 else 0
    return Cost.of(read=out + index, written=out)


def _dynamic_update_slice(a: _Analysis, inst: Instruction) -> Cost:
    update = _size_of(inst.operands[1])
    index = _size_of(inst.operands[2]) if len(inst.operands) > 2 else 0
    return Cost.of(read=update + index, written=update)


def _gather(a: _Analysis, inst: Instruction) -> Cost:
    out = _size_of(inst)
    return Cost.of(read=out + _size_of(inst.operands[1]), written=out)


def _scatter(a: _Analysis, inst: Instruction) -> Cost:
    n = (len(inst.operands) - 1) // 2
    updates = inst.operands[n + 1 :]
    total = sum(_size_of(u) for u in updates)
    indices = _size_of(inst.operands[n])
    sub = a._sub_ops(inst)
    count = _elements_of(updates[0]) if updates else 0
    return Cost.of(sub.flops * count, sub.transcendentals * count, 2 * total + indices, total)


def _transpose(a: _Analysis, inst: Instruction) -> Cost:
    if len(inst.operands) != 1:
        raise _Malformed(f"transpose needs one operand, has {len(inst.operands)}")
    if _transpose_is_bitcast(inst):
        return ZERO
    return a._default(inst)


def _minor_to_major(shape: Shape) -> tuple[int, ...]:
    if shape.layout is not None and (shape.layout.minor_to_major or not shape.dims):
        return shape.layout.minor_to_major
    return tuple(range(len(shape.dims) - 1, -1, -1))


def _transpose_is_bitcast(inst: Instruction) -> bool:
    """``ShapeUtil::TransposeIsBitcast``: the permutation only renames dimensions in memory."""
    src = inst.operands[0].shape
    dst = inst.shape
    if src.element_type != dst.element_type:
        return False
    perm = _ints(inst, "dimensions")
    out_m2m = _minor_to_major(dst)
    if len(perm) != len(out_m2m):
        return False
    return tuple(perm[i] for i in out_m2m) == _minor_to_major(src)


def _all_reduce(a: _Analysis, inst: Instruction) -> Cost:
    arrays = _array_subshapes(inst.shape)
    flops = sum(_elements(s) for s in arrays)
    written = sum(shape_size(s) for s in arrays)
    return Cost.of(flops, 0, a._default_read(inst), written)


def _rng(a: _Analysis, inst: Instruction) -> Cost:
    return a._default(inst, trans=_elements_of(inst))


def _rng_bit_generator(a: _Analysis, inst: Instruction) -> Cost:
    n = sum(_elements(s) for s in inst.shape.leaves())
    return a._default(inst, trans=n)


def _cholesky(a: _Analysis, inst: Instruction) -> Cost:
    shape = inst.operands[0].shape
    half = _size_of(inst.operands[0]) // 2
    flops = (shape.dims[-1] or 0) * _elements(shape) // 3 if shape.dims else 0
    return Cost.of(flops, 0, half, half)


def _triangular_solve(a: _Analysis, inst: Instruction) -> Cost:
    a_shape = inst.operands[0].shape
    b_shape = inst.operands[1].shape
    read = _size_of(inst.operands[0]) // 2 + _size_of(inst.operands[1])
    flops = FMA_FLOPS * (a_shape.dims[-1] or 0) * _elements(b_shape) if a_shape.dims else 0
    return Cost.of(flops, 0, read, _size_of(inst))


def _infeed(a: _Analysis, inst: Instruction) -> Cost:
    return Cost.of(written=sum(shape_size(s) for s in inst.shape.leaves()))


def _outfeed(a: _Analysis, inst: Instruction) -> Cost:
    read = sum(shape_size(s) for op in inst.operands for s in op.shape.leaves())
    return Cost.of(read=read)


def _async_start(a: _Analysis, inst: Instruction) -> Cost:
    return a._call(inst)


_HANDLERS = {
    "tuple": _tuple,
    "dot": _dot,
    "scaled-dot": _dot,
    "ragged-dot": _ragged_dot,
    "convolution": _convolution,
    "reduce": _reduce,
    "reduce-window": _reduce_window,
    "select-and-scatter": _select_and_scatter,
    "map": _map,
    "sort": _sort,
    "fft": _fft,
    "slice": _slice,
    "dynamic-slice": _dynamic_slice,
    "dynamic-update-slice": _dynamic_update_slice,
    "gather": _gather,
    "scatter": _scatter,
    "transpose": _transpose,
    "all-reduce": _all_reduce,
    "all-reduce-start": _all_reduce,
    "rng": _rng,
    "rng-bit-generator": _rng_bit_generator,
    "cholesky": _cholesky,
    "triangular-solve": _triangular_solve,
    "infeed": _infeed,
    "outfeed": _outfeed,
    "while": _Analysis._while,
    "call": _Analysis._call,
    "conditional": _Analysis._conditional,
    "async-start": _async_start,
    "custom-call": _Analysis._custom_call,
}


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


def kernel_computations(module: Module) -> list[Computation]:
    """Computations whose instructions run as kernels: the entry, and, reached from it, the
    bodies and conditions of ``while``, branches of ``conditional``, ``call`` targets and
    ``async-start`` computations (in the order first reached)."""
    return [p.computation for p in placements(module).values()]


_CONTROL_FLOW = frozenset({"while", "conditional", "call", "async-start"})


class Role(StrEnum):
    """What part of a control-flow instruction a computation is."""

    ENTRY = "entry"
    BODY = "body"  # a while's body
    CONDITION = "condition"  # a while's condition
    BRANCH = "branch"  # one branch of a conditional
    CALL = "call"  # the target of a call or async-start


@dataclass(frozen=True, slots=True)
class Step:
    """One control-flow instruction on the way from the entry to a computation.

    ``branch`` is a conditional branch's index as XLA numbers ``branch_computations``
    (``"0"``, ``"1"``...) or ``"true"``/``"false"`` for the predicate form. ``trip_count`` is
    a while's ``known_trip_count`` (``None``: XLA could not prove one).
    """

    instruction: Instruction
    role: Role
    branch: str = ""
    trip_count: int | None = None

    @property
    def in_loop(self) -> bool:
        return self.role in (Role.BODY, Role.CONDITION)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a computation's instructions run: the control-flow steps from the entry to it.

    The entry's path is empty. A computation reached from several callers keeps the first
    path found (breadth first), which is the only one in the modules XLA optimizes: its
    passes give every loop body and branch its own computation (hence ``.clone`` names).

    A placement holds only its last ``step`` and the ``parent`` placement it leads from (the
    computation that step's instruction is in), not the whole path: a path is as long as the
    nesting is deep, and ten thousand nested loops would hold fifty million steps. What is
    asked of every placement (:attr:`executions`, :attr:`trip_count`, :attr:`depth`...) is
    worked out from the parent's when the placement is made; :attr:`path` walks the parents.
    """

    computation: Computation
    # Left out of repr and comparisons, which would otherwise walk the whole path recursively.
    parent: Placement | None = field(default=None, repr=False, compare=False)
    step: Step | None = None
    depth: int = field(init=False, default=0)
    executions: int = field(init=False, default=1)
    trip_count: int | None = field(init=False, default=None)
    unknown_trip_count: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        parent, step = self.parent, self.step
        if parent is None or step is None:
            return
        # Frozen: the derived fields are set once, here, as dataclasses do for frozen fields.
        init = object.__setattr__
        init(self, "depth", parent.depth + 1)
        if step.in_loop:
            known = step.trip_count
            init(self, "executions", parent.executions * (known if known is not None else 1))
            init(self, "trip_count", known)
            init(self, "unknown_trip_count", parent.unknown_trip_count or known is None)
        else:
            init(self, "executions", parent.executions)
            init(self, "trip_count", parent.trip_count)
            init(self, "unknown_trip_count", parent.unknown_trip_count)

    @property
    def path(self) -> tuple[Step, ...]:
        """The control-flow steps from the entry to the computation, outermost first.

        ``executions`` is the product of the known trip counts of the loops on it (a loop
        without one counts once, as :attr:`ModuleCost.executed` counts it; a condition runs
        once more than its body, but both count ``n``, as the executed totals do: the last
        test is a scalar compare). ``trip_count`` is the innermost loop's known trip count
        (``None`` when there is no loop or XLA recorded none) and ``unknown_trip_count`` says
        whether a loop on it has none.
        """
        steps: list[Step] = []
        node: Placement | None = self
        while node is not None and node.step is not None:
            steps.append(node.step)
            node = node.parent
        return tuple(reversed(steps))


def placements(module: Module) -> dict[str, Placement]:
    """Each kernel computation (see :func:`kernel_computations`) by name, with its path from
    the entry, in the order first reached (breadth first)."""
    entry = module.entry
    if entry is None:
        return {}
    out: dict[str, Placement] = {}
    seen: set[int] = {id(entry)}
    queue: deque[Placement] = deque([Placement(entry)])
    while queue:
        placement = queue.popleft()
        out[placement.computation.name] = placement
        for inst in placement.computation.instructions:
            if inst.opcode not in _CONTROL_FLOW:
                continue
            for called in inst.called_computations:
                if id(called) not in seen:
                    seen.add(id(called))
                    queue.append(Placement(called, placement, _step(inst, called)))
    return out


def _step(inst: Instruction, called: Computation) -> Step:
    """The step from control-flow instruction ``inst`` into the computation ``called``."""
    op = inst.opcode
    if op == "while":
        role = Role.BODY if _called_name(inst, "body") == called.name else Role.CONDITION
        return Step(inst, role, trip_count=known_trip_count(inst))
    if op == "conditional":
        branches = inst.attrs.get("branch_computations")
        if branches:
            names = [getattr(b, "name", b) for b in branches]
            index = names.index(called.name) if called.name in names else -1
            return Step(inst, Role.BRANCH, branch=str(index))
        side = "true" if _called_name(inst, "true_computation") == called.name else "false"
        return Step(inst, Role.BRANCH, branch=side)
    return Step(inst, Role.CALL)


def _called_name(inst: Instruction, attr: str) -> str:
    # The attribute holds a name, or a Computation when the body was written inline.
    value = inst.attrs.get(attr)
    return getattr(value, "name", value) or ""


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
        if op not in _CONTROL_FLOW:
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

    for comp in _callees_first(entry, lambda c: False, _CONTROL_FLOW):
        out = ZERO
        for inst in comp.instructions:
            out = out + priced(inst)
        totals[id(comp)] = out
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
            if op in _CONTROL_FLOW:
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

"""What a kernel computes, as pairing compares it: its traits and a layout-free fingerprint.

Names and source lines say where a kernel came from; they cannot say what it does. When a
refactor replaces code (a hand-written ``softmax(QK^T)V`` by ``jax.nn.dot_product_attention``),
the new kernels have new names and new lines, and the ops that still share a name (a
``reduce_sum``, a ``div``) can glue an attention kernel of A to a layer-norm kernel of B. So
each kernel also gets what it computes, read from its fused computation (nested fusions and
reducers included):

* :class:`Trait`: the kinds of work that tell kernels apart: ``dot`` (a dot or convolution),
  ``softmax`` (an exponential, or a reduce by maximum), ``norm`` (an rsqrt or sqrt), and the
  plainer ``reduce``, ``gather``, ``elementwise``, ``movement`` (copies, transposes, slices);
* a fingerprint (:attr:`KernelCompute.fingerprint`): each dot as its contracted extent and
  output size, each reduce as its reducer and reduced extent, every other op as its opcode,
  element type and element count. None of it depends on the order of dimensions, so the
  same softmax over ``[batch, heads, q, k]`` and over ``[batch, q, heads, k]`` (the layout a
  library picks) has one fingerprint.

:func:`compatible` says whether two kernels may be paired: never an attention or softmax
kernel with a normalization kernel, nor two kernels whose distinctive traits (dot, softmax,
norm) are disjoint. Kernels of plain traits (an elementwise remainder of a split) are
compatible with anything: XLA moves such ops freely between kernels.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from ._sides import DiffSide

if TYPE_CHECKING:  # pragma: no cover
    from ...hlo.model import Instruction


class Trait(StrEnum):
    """A kind of work a kernel does (a kernel has one or several)."""

    DOT = "dot"
    SOFTMAX = "softmax"
    NORM = "norm"
    REDUCE = "reduce"
    GATHER = "gather"
    ELEMENTWISE = "elementwise"
    MOVEMENT = "movement"


#: Traits that tell kernels apart: two kernels that have some must share one.
DISTINCTIVE = frozenset({Trait.DOT, Trait.SOFTMAX, Trait.NORM})

_DOTS = frozenset({"dot", "convolution"})
_SOFTMAX_OPS = frozenset({"exponential", "exponential-minus-one"})
_NORM_OPS = frozenset({"rsqrt", "sqrt"})
_GATHERS = frozenset({"gather", "scatter", "dynamic-slice", "dynamic-update-slice"})
_MOVEMENT = frozenset(
    {"copy", "transpose", "slice", "concatenate", "pad", "reverse", "reshape", "bitcast"}
)
# Ops that carry no work of their own (or that XLA copies into any kernel).
_NO_WORK = frozenset(
    {"parameter", "constant", "tuple", "get-tuple-element", "broadcast", "iota", "fusion"}
)
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True, slots=True)
class KernelCompute:
    """What one kernel computes: its :class:`Trait` set and its fingerprint (a sorted tuple,
    equal for kernels that do the same work on the same amount of data, whatever the
    order of their dimensions); ``fingerprint`` is ``None`` for a side without HLO."""

    traits: frozenset[Trait]
    fingerprint: tuple[Hashable, ...] | None

    @property
    def distinctive(self) -> frozenset[Trait]:
        return self.traits & DISTINCTIVE

    @property
    def label(self) -> str:
        """``attention``, ``softmax``, ``normalization``, ``matmul``... for a sentence."""
        return compute_label(self.traits)


def compute_label(traits: frozenset[Trait]) -> str:
    """The name of the computation a set of traits makes."""
    if Trait.DOT in traits and Trait.SOFTMAX in traits:
        return "attention"
    if Trait.SOFTMAX in traits:
        return "softmax"
    if Trait.NORM in traits:
        return "normalization" + (" + matmul" if Trait.DOT in traits else "")
    if Trait.DOT in traits:
        return "matmul"
    for trait in (Trait.GATHER, Trait.REDUCE, Trait.ELEMENTWISE):
        if trait in traits:
            return str(trait)
    return "data movement"


def compatible(a: KernelCompute, b: KernelCompute) -> bool:
    """Whether kernels computing ``a`` and ``b`` may be one kernel's before and after."""
    if _softmax_not_norm(a) and _norm_not_softmax(b):
        return False
    if _softmax_not_norm(b) and _norm_not_softmax(a):
        return False
    da, db = a.distinctive, b.distinctive
    return not (da and db) or bool(da & db)


def _softmax_not_norm(c: KernelCompute) -> bool:
    return Trait.SOFTMAX in c.traits and Trait.NORM not in c.traits


def _norm_not_softmax(c: KernelCompute) -> bool:
    return Trait.NORM in c.traits and Trait.SOFTMAX not in c.traits


def kernel_computes(side: DiffSide) -> list[KernelCompute]:
    """:class:`KernelCompute` of each kernel of ``side``, from its HLO where the side has
    it, else from the opcodes a fusion report lists (no fingerprint then)."""
    out = []
    opcodes_of: list[list[str]] = [[] for _ in side.kernels]
    for op in side.ops:
        opcodes_of[op.kernel].append(op.opcode)
    for k, inst in enumerate(side.instructions):
        if inst is None:
            out.append(KernelCompute(_traits(opcodes_of[k], ()), None))
        else:
            out.append(_of_instruction(inst))
    return out


def _of_instruction(kernel: Instruction) -> KernelCompute:
    opcodes: list[str] = []
    reducers: list[str] = []
    parts: list[Hashable] = []
    for inst in _members(kernel):
        opcode = inst.opcode
        opcodes.append(opcode)
        if opcode in _DOTS:
            parts.append(("dot", _contracted(inst), _elements(inst)))
        elif opcode in ("reduce", "reduce-window"):
            reducer = _reducer(inst)
            reducers.append(reducer)
            parts.append((opcode, reducer, _reduced_extent(inst)))
        elif opcode not in _NO_WORK and opcode not in _MOVEMENT:
            parts.append((opcode, _dtype(inst), _elements(inst)))
    fingerprint = tuple(sorted(Counter(map(str, parts)).items()))
    return KernelCompute(_traits(opcodes, reducers), fingerprint)


def _traits(opcodes: list[str], reducers: list[str] | tuple[str, ...]) -> frozenset[Trait]:
    ops = set(opcodes)
    traits: set[Trait] = set()
    if ops & _DOTS:
        traits.add(Trait.DOT)
    if ops & _SOFTMAX_OPS or "maximum" in reducers:
        traits.add(Trait.SOFTMAX)
    if ops & _NORM_OPS:
        traits.add(Trait.NORM)
    if "reduce" in ops or "reduce-window" in ops:
        traits.add(Trait.REDUCE)
    if ops & _GATHERS:
        traits.add(Trait.GATHER)
    rest = ops - _NO_WORK - _MOVEMENT - _DOTS - _GATHERS - {"reduce", "reduce-window"}
    if rest:
        traits.add(Trait.ELEMENTWISE)
    if not traits:
        traits.add(Trait.MOVEMENT)
    return frozenset(traits)


def _members(kernel: Instruction) -> Iterator[Instruction]:
    """The instructions a kernel runs: its fused computation's, nested fusions opened."""
    if kernel.fused_computation is None:
        yield kernel
        return
    pending = [kernel.fused_computation]
    while pending:
        for inst in pending.pop().instructions:
            if inst.opcode == "fusion" and inst.fused_computation is not None:
                pending.append(inst.fused_computation)
            yield inst


def _reducer(inst: Instruction) -> str:
    """``add``, ``maximum``... what a reduce combines with (its reducer's root)."""
    try:
        root = inst.called_computations[0].root
    except (IndexError, AttributeError):
        return ""
    return root.opcode if root is not None else ""


def _elements(inst: Instruction) -> int:
    try:
        return inst.shape.element_count or 0
    except Exception:  # noqa: BLE001 - an odd shape still has an opcode
        return 0


def _dtype(inst: Instruction) -> str:
    text = inst.shape_text
    return text[: text.index("[")] if "[" in text else text


def _reduced_extent(inst: Instruction) -> int:
    """How many elements each output of a reduce combines (input size over output size):
    the length of the axes reduced, whatever their position."""
    out = _elements(inst)
    if not inst.operands or not out:
        return 0
    first = inst.operands[0]
    try:
        size = first.shape.element_count or 0
    except Exception:  # noqa: BLE001
        return 0
    leaves = len(inst.operands) // 2 or 1  # a variadic reduce outputs one leaf per input
    return size * leaves // out if out else 0


def _contracted(inst: Instruction) -> int:
    """The contracted extent of a dot (the product of its lhs contracting dimensions); 0 for
    a convolution or an unreadable dot."""
    if inst.opcode != "dot" or not inst.operands:
        return 0
    text = str(inst.attrs.get("lhs_contracting_dims", ""))
    try:
        dims = inst.operands[0].shape.dims
        extent = 1
        for d in map(int, _DIGITS.findall(text)):
            extent *= dims[d] or 1
    except Exception:  # noqa: BLE001 - an odd dot still counts as a dot
        return 0
    return extent

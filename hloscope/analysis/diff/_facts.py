"""What pairing compares, per kernel of one side: keys that bucket kernels, facts that score them.

Kernels of A and B are first put in buckets by a key (:func:`_provenance_keys`: the multiset of
what their ops are by name, opcode and call stack; for kernels left without a link,
:func:`_by_shapes` and :func:`_by_opcodes`). Within a bucket, twins (a model's repeated blocks)
are told apart by the facts of :class:`_KernelFacts`: the entry parameters each kernel reads,
its producer and consumer kernels (:func:`_kernel_graph`), its operand and op shapes, and its
kind, shape and cost (:func:`_structure`). Values that repeat across thousands of kernels are
numbered once over both sides (:class:`_Interned`), so that scoring compares numbers.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from ..fusions import Kernel
from ._names import _DIGITS, _LAYOUT
from ._sides import DiffSide, _data_source, _Strings

_SHAPE_TEXT = operator.attrgetter("shape_text")


def _provenance_keys(
    side: DiffSide, kernel_ops: list[list[int]], with_stack: bool
) -> list[Hashable | None]:
    """Per kernel, the multiset of what its ops are by provenance: ``op_name`` (normalized by
    :func:`provenance_name`), opcode and, ``with_stack``, the whole call stack (the source
    line where a side knows no more). Weak ops count only in kernels made of nothing else.

    Multisets: ops of one line repeat (``mul`` three times in ``y * gate + 0.1 * y``), and a
    kernel holding one of them is not the kernel that held all three. Without stacks, a side
    with no op names has no key (opcodes alone say too little)."""
    ops = side.ops
    if not with_stack and not any(op.name for op in ops):
        return [None] * len(kernel_ops)
    out: list[Hashable | None] = []
    what = _NAME_OPCODE_ORIGIN if with_stack else _NAME_OPCODE
    for members in kernel_ops:
        anchors = [op for op in map(ops.__getitem__, members) if op.anchor]
        out.append(frozenset(Counter(map(what, anchors)).items()) or None)
    return out


_NAME_OPCODE_ORIGIN = operator.attrgetter("name", "opcode", "origin")
_NAME_OPCODE = operator.attrgetter("name", "opcode")


def _by_shapes(side: DiffSide, kernel_ops: list[list[int]], k: int) -> Hashable:
    """The kernel's kind and the multiset of its ops' opcodes and shapes."""
    kern = side.kernels[k]
    ops = sorted((side.ops[i].opcode, side.ops[i].shape) for i in kernel_ops[k])
    shape = kern.shape if ops and not ops[0][1] else ""  # a side without op shapes
    return (kern.opcode, kern.kind, kern.backend_kind, shape, tuple(ops))


def _by_opcodes(side: DiffSide, kernel_ops: list[list[int]], k: int) -> Hashable:
    """The kernel's kind, its ops' opcodes and their names with numbers masked."""
    kern = side.kernels[k]
    ops = sorted(side.ops[i].opcode for i in kernel_ops[k])
    names = sorted({_DIGITS.sub("#", side.ops[i].name) for i in kernel_ops[k]} - {""})
    return (kern.opcode, kern.kind, kern.backend_kind, tuple(ops), tuple(names))


def _shared(a: Counter[Any], b: Counter[Any]) -> int:
    """The size of the multiset intersection of ``a`` and ``b`` (``Counter.__and__`` builds the
    intersection; this only counts it)."""
    if dict.__eq__(a, b):  # a model's repeated blocks, compared in C (Counter.__eq__ is not)
        return sum(a.values())
    if len(b) < len(a):
        a, b = b, a
    return sum(min(n, b[k]) for k, n in a.items() if k in b)


class _Interned:
    """Numbers for the distinct values of one kind (a kernel's shape multiset, say) over both
    sides of a diff, and the overlap of two such values worked out once per pair of numbers:
    a deep model's repeated blocks have a few distinct values among thousands of kernels."""

    __slots__ = ("numbers", "values", "_overlaps")

    def __init__(self) -> None:
        self.numbers: dict[Hashable, int] = {}
        self.values: list[Counter[Any]] = []
        self._overlaps: dict[tuple[int, int], int] = {}

    def number(self, counts: Counter[Any]) -> int:
        key = frozenset(counts.items())
        n = self.numbers.get(key)
        if n is None:
            n = self.numbers[key] = len(self.values)
            self.values.append(counts)
        return n

    def overlaps(self, a: int, bs: Iterable[int]) -> dict[int, int]:
        """``{b: size of the multiset intersection of values a and b}`` for each of ``bs``."""
        out = {}
        for b in bs:
            key = (a, b)
            n = self._overlaps.get(key)
            if n is None:
                n = self._overlaps[key] = _shared(self.values[a], self.values[b])
            out[b] = n
        return out


@dataclass(slots=True)
class _KernelFacts:
    """What :meth:`._matching._Matcher._score` compares, per kernel of one side."""

    params: list[Counter[str]]  # the parameters it reads ("parameter 3")
    readers: dict[Hashable, list[tuple[int, int]]]  # parameter -> (kernel, times it reads it)
    producers: list[set[int]]  # kernels it reads
    consumers: list[set[int]]  # kernels that read it
    io_shapes: list[int]  # its output shape and its operands' shapes, no layouts (numbered)
    op_shapes: list[int]  # its ops' opcodes and shapes (numbered)
    structure: list[int]  # kind, shape and cost (see _structure; numbered)
    order: list[float]  # its position in the schedule, 0 to 1

    @classmethod
    def of(
        cls,
        side: DiffSide,
        kernel_ops: list[list[int]],
        shapes: _Interned,
        ops: _Interned,
        structures: dict[Hashable, int],
    ) -> _KernelFacts:
        producers, consumers = _kernel_graph(side)
        last = max(len(side.kernels) - 1, 1)
        io_shapes: list[int] = []
        shape_of = _Strings().shape  # without its layout, worked out once per shape
        for kernel, inst in zip(side.kernels, side.instructions):
            counts = Counter([shape_of(kernel.shape)])
            if inst is not None:
                counts.update(map(shape_of, map(_SHAPE_TEXT, inst.operands)))
            io_shapes.append(shapes.number(counts))
        params = [
            Counter(x for x in links if isinstance(x, str) and x.startswith("parameter "))
            for links in producers
        ]
        readers: dict[Hashable, list[tuple[int, int]]] = {}
        for k, counts in enumerate(params):
            for token, n in counts.items():
                readers.setdefault(token, []).append((k, n))
        op_counts = (
            Counter((side.ops[i].opcode, side.ops[i].shape) for i in m) for m in kernel_ops
        )
        return cls(
            params=params,
            readers=readers,
            producers=[{x for x in links if isinstance(x, int)} for links in producers],
            consumers=[{x for x in links if isinstance(x, int)} for links in consumers],
            io_shapes=io_shapes,
            op_shapes=list(map(ops.number, op_counts)),
            structure=[structures.setdefault(_structure(k), len(structures)) for k in side.kernels],
            order=[n / last for n in range(len(side.kernels))],
        )


def _kernel_graph(side: DiffSide) -> tuple[list[list[Hashable]], list[list[Hashable]]]:
    """Per kernel, what feeds it and what it feeds: kernel indices, or a token for anything
    else (``parameter 0``, ``constant``, ``out`` for a result no kernel reads). Values are
    followed through bitcasts, tuples and get-tuple-elements, which move no data."""
    index = {id(inst): k for k, inst in enumerate(side.instructions) if inst is not None}
    producers: list[list[Hashable]] = [[] for _ in side.kernels]
    consumers: list[list[Hashable]] = [[] for _ in side.kernels]
    for k, inst in enumerate(side.instructions):
        if inst is None:
            continue
        for operand in inst.operands:
            source = _data_source(operand)
            found = index.get(id(source))
            if found is not None:
                producers[k].append(found)
                consumers[found].append(k)
            elif source.opcode == "parameter":
                producers[k].append(f"parameter {source.parameter_number}")
            else:
                producers[k].append(source.opcode)
    for k, inst in enumerate(side.instructions):
        if inst is not None and not consumers[k]:
            consumers[k].append("out")
    return producers, consumers


def _structure(k: Kernel) -> Hashable:
    c = k.cost
    return (
        k.opcode,
        k.kind,
        k.backend_kind,
        _LAYOUT.sub("", k.shape),
        c.bytes_accessed,
        c.flops,
        c.transcendentals,
    )

"""Costs of a body read from the parser's columns, without building its instructions.

A deep model's optimized module keeps nearly all its instructions in a few hundred large
fused bodies (the 54 MB module: 367k of 402k in 298 bodies), each distinct, so costing each
once still makes an Instruction per fused op, and reading its operands and users takes as
long again. What the rules ask of most fused ops is only their opcode, their shape and their
operands' shapes; this module reads them off the columns of a body the parser has not built
(:meth:`~hloscope.hlo.model.Computation.text_columns`), at two depths:

* :func:`fusion_cost`, a kernel's cost: the FLOPs of its ops from each (opcode, shape) pair,
  counted in C, and the bytes at its boundary from its parameters' users, found by joining
  and splitting whole columns (:func:`fusion_bytes`). No fused op is costed on its own.
* :func:`body_costs`, each op's own cost (what a report's per-op sources list): an op's
  operands' shapes by joining and splitting whole columns, each distinct (opcode, shape,
  operand shapes) form priced once.

It answers only where the answer is sure to be the rules' own: a body with any op another rule
prices (a dot, a reduce, a nested fusion...), a transpose of other than one operand or whose
attributes do not decode, a tuple parameter, a shape that does not parse, gets None, and the
caller builds the body and asks the rules op by op. tests/test_cost_columns.py checks both ways
agree on every corpus module, and XLA's own analysis on bodies made to reach each rule here.
"""

from __future__ import annotations

import operator
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import compress, repeat
from typing import TYPE_CHECKING, Any

from ...errors import HloscopeError
from ...hlo.attributes import Attributes
from ...hlo.shape import parse_shape
from ._results import ZERO, Cost
from ._rules import (
    _DEFAULT_OPCODES,
    _ONE_FLOP_PER_ELEMENT,
    TRANSCENDENTAL_OPCODES,
    ZERO_COST_OPCODES,
    transpose_is_bitcast,
)
from ._shapes import (
    _ELEMENTS,
    _SIZE,
    _WRITTEN,
    _array_subshapes,
    _size_of,
    measured_text,
    shape_size,
)

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterator

    from ...hlo.model import Computation, Instruction

# Opcodes priced here: by the three plain rules, transpose (a bitcast's zero, else the
# default: its dimensions decoded as the instruction's are), and the rules of a fused body's data
# movement that read shapes alone (a multi-output fusion's tuple root, a scan body's slices).
_SLICE_RULES = frozenset({"tuple", "slice", "dynamic-slice", "dynamic-update-slice"})
_PRICED_HERE = (
    ZERO_COST_OPCODES | _ONE_FLOP_PER_ELEMENT | _DEFAULT_OPCODES | _SLICE_RULES | {"transpose"}
)
# Users through which a fused parameter is read other than whole once (XLA's
# FusionParameterReadBytes): each broadcast or reshape reads it whole again, a slice reads
# what it outputs, a dynamic slice (of it) likewise, a dynamic-update-slice into it nothing.
_REREAD = frozenset({"broadcast", "reshape"})
_READ_APART_ONCE = frozenset({"slice", "dynamic-slice", "dynamic-update-slice", "fusion"})
_READ_APART = _REREAD | _READ_APART_ONCE
_PAYLOAD = frozenset({"parameter", "constant"})
_IS_PAYLOAD = _PAYLOAD.__contains__
_INDEX_COMMENTS = re.compile(r"/\*index=\d+\*/")
_SEP = "\0"  # joins an op's operands' shape texts: no shape text holds it


class BodyColumns:
    """One unbuilt body as columns: names, shapes, opcodes, each op's operand names."""

    __slots__ = ("names", "shapes", "opcodes", "root", "operand_lists", "_joined")

    def __init__(self, columns: list[Sequence[str]]) -> None:
        roots, self.names, self.shapes, opcodes, operand_texts, _ = columns
        texts: Iterable[str] = operand_texts
        self.opcodes = opcodes
        n = len(opcodes)
        self.root = next(compress(range(n), roots), n - 1)
        if not _PAYLOAD.isdisjoint(opcodes):
            # A parameter's number, a constant's literal: no operands. Blanked in C (a text
            # times False is "").
            texts = map(operator.mul, texts, map(operator.not_, map(_IS_PAYLOAD, opcodes)))
        joined = "\n".join(texts)
        if "/*" in joined:
            joined = _INDEX_COMMENTS.sub("", joined)
        joined = joined.replace("%", "").replace(" ", "")
        if "\t" in joined:
            joined = joined.replace("\t", "")
        self._joined = joined
        # Each op's operand names ("a,b"; "" for none).
        self.operand_lists = joined.split("\n")

    def operand_shapes(self) -> list[str]:
        """Each op's operands' shape texts joined by NUL, from whole columns in C."""
        shape_of = dict(zip(self.names, self.shapes))
        # Every op's operands in one list, a "\n" between two ops' ("" where one has none).
        flat = self._joined.replace("\n", ",\n,").split(",")
        return _SEP.join(map(shape_of.get, flat, flat)).split(_SEP + "\n" + _SEP)


def body_costs(
    comp: Computation, price: Callable[[int, int, int, int], Cost]
) -> tuple[list[Cost], BodyColumns, Cost] | None:
    """The rules' cost of each op of ``comp``, in order, read from its columns, the columns
    and the sum of the costs; None where the body is built or holds anything this module does
    not price (see the module docstring). ``price(flops, transcendentals, read, written)``
    gives the analysis' pooled Cost."""
    columns = comp.text_columns()
    if columns is None or not _PRICED_HERE.issuperset(columns[3]):
        return None
    body = BodyColumns(columns)
    forms: list[tuple[Any, ...]] = list(zip(body.opcodes, body.shapes, body.operand_shapes()))
    if "transpose" in body.opcodes:
        for k, perm in _transposes(body, columns[5]):
            if perm is None:
                return None
            forms[k] = (*forms[k], perm)
    priced: dict[tuple[Any, ...], Cost] = {}
    total = [0, 0, 0, 0, 0]  # the sum, each form's cost times how many ops have it
    try:
        for form, n in Counter(forms).items():
            cost = _form_cost(form, price)
            if cost is None:
                return None
            priced[form] = cost
            total[0] += n * cost.flops
            total[1] += n * cost.transcendentals
            total[2] += n * cost.bytes_read
            total[3] += n * cost.bytes_written
            total[4] += n * cost.bytes_accessed
    except HloscopeError:
        return None  # a shape that does not parse: the instruction says where
    flops, trans, read, written, accessed = total
    return list(map(priced.__getitem__, forms)), body, Cost(flops, trans, read, written, accessed)


def _transposes(
    body: BodyColumns, attrs: Sequence[str]
) -> Iterator[tuple[int, tuple[int, ...] | None]]:
    """Each transpose's position and ``dimensions`` as the rule reads them (its attributes
    decoded as the instruction's are), None where they do not decode: the rule raises the
    parse error there, naming the instruction."""
    for k in _positions(body.opcodes, "transpose"):
        try:
            perm = tuple(Attributes(attrs[k], "transpose").get("dimensions") or ())
        except HloscopeError:
            perm = None
        yield k, perm


def _form_cost(form: tuple[Any, ...], price: Callable[[int, int, int, int], Cost]) -> Cost | None:
    opcode, shape, operands = form[0], form[1], form[2]
    if opcode in ZERO_COST_OPCODES:
        return ZERO
    own = measured_text(shape)
    sizes = [measured_text(s)[_SIZE] for s in operands.split(_SEP)] if operands else []
    if opcode in _ONE_FLOP_PER_ELEMENT:
        n = own[_ELEMENTS]
        if opcode in TRANSCENDENTAL_OPCODES:
            return price(0, n, sum(sizes), own[_WRITTEN])
        return price(n, 0, sum(sizes), own[_WRITTEN])
    if opcode in _SLICE_RULES:
        return _moved(opcode, own[_SIZE], sizes, price)
    if opcode == "transpose":
        if len(sizes) != 1:
            return None  # malformed: the rule flags it, naming the instruction
        if transpose_is_bitcast(parse_shape(operands), parse_shape(shape), form[3]):
            return ZERO
    return price(0, 0, sum(sizes), own[_WRITTEN])


def _moved(
    opcode: str, out: int, operands: list[int], price: Callable[[int, int, int, int], Cost]
) -> Cost | None:
    """The rules of ``_rules`` for tuple, slice, dynamic-slice and dynamic-update-slice (the
    operands' sizes in order); None for a dynamic-update-slice without its update (malformed:
    the rule flags it)."""
    if opcode == "tuple":  # its table of pointers
        return price(0, 0, 0, out)
    if opcode == "slice":
        return price(0, 0, out, out)
    if opcode == "dynamic-slice":
        index = operands[1] if len(operands) > 1 else 0
        return price(0, 0, out + index, out)
    if len(operands) < 2:
        return None
    update = operands[1]
    index = operands[2] if len(operands) > 2 else 0
    return price(0, 0, update + index, update)


def fusion_cost(inst: Instruction, fused: Computation) -> Cost | None:
    """The cost of fusion ``inst`` (XLA's: the FLOPs of its fused ops, the bytes at its
    boundary) read from the columns of ``fused`` without costing each fused op: the FLOPs
    come from each (opcode, shape) pair, counted in C. None where the columns cannot say
    (see :func:`body_costs`; a fused op the rules would flag), or the body is built. What it
    reads of the body (:func:`fused_body_cost`) comes from a forked parse's child where one
    read the body (see :func:`~hloscope.hlo.parser.send_structure`): the body's text is then
    not read here at all."""
    ahead = fused.read_ahead(fused_body_cost)
    if ahead is not None:
        part = ahead[0]
    else:
        columns = fused.text_columns()
        if columns is None:
            return None
        part = fused_body_cost(columns)
    if part is None:
        return None
    flops, trans, read, root_writes, outputs_write = part
    written = _written_from(inst, root_writes, outputs_write)
    if written is None:
        return None
    return Cost(flops, trans, read, written, read + written)


#: What :func:`fused_body_cost` says of a fused body: its FLOPs, transcendentals, the bytes
#: read at its boundary, and what its root writes (see :func:`_root_writes`).
BodyCost = tuple[int, int, int, int, list[int | None] | None]


def fused_body_cost(columns: list[Sequence[str]]) -> BodyCost | None:
    """All that :func:`fusion_cost` reads of a fused body, from its parser's columns (ROOT,
    name, shape, opcode, operand text, attributes), and nothing of the fusion instruction:
    so that a forked parse's child can work it out for the bodies it reads. None where the
    columns cannot say (see :func:`fusion_cost`)."""
    if not _PRICED_HERE.issuperset(columns[3]):
        return None
    body = BodyColumns(columns)
    work = _work(body, columns[5])
    if work is None:
        return None
    read = _read_bytes(body)
    if read is None:
        return None
    return (work[0], work[1], read, *_root_writes(body))


def _work(body: BodyColumns, attrs: Sequence[str]) -> tuple[int, int] | None:
    """(FLOPs, transcendentals) of the body's ops, which :func:`body_costs` would sum: one
    per output element of each elementwise op, none for the others. None wherever
    :func:`body_costs` would be: a shape that does not parse (an operand's included: operands
    are the body's ops), a transpose of other than one operand or whose dimensions do not
    decode, a dynamic-update-slice without its update."""
    opcodes, shapes, lists = body.opcodes, body.shapes, body.operand_lists
    if "transpose" in opcodes:
        for k, perm in _transposes(body, attrs):
            if perm is None or lists[k].count(",") or not lists[k]:
                return None
    for k in _positions(opcodes, "dynamic-update-slice"):
        if not lists[k].count(","):
            return None
    flops = trans = 0
    try:
        # Every shape measured (each op's is some op's operand's): one that does not parse
        # is the rules' to report.
        for (opcode, shape), n in Counter(zip(opcodes, shapes)).items():
            elements = measured_text(shape)[_ELEMENTS]
            if opcode in _ONE_FLOP_PER_ELEMENT:
                if opcode in TRANSCENDENTAL_OPCODES:
                    trans += n * elements
                else:
                    flops += n * elements
    except HloscopeError:
        return None
    return flops, trans


def _positions(opcodes: Sequence[str], opcode: str) -> Iterable[int]:
    """Where ``opcode`` is among ``opcodes`` (most bodies have none: one test in C)."""
    if opcode not in opcodes:
        return ()
    return compress(range(len(opcodes)), map(opcode.__eq__, opcodes))


def fusion_bytes(inst: Instruction, body: BodyColumns) -> tuple[int, int] | None:
    """(bytes read, bytes written) at the boundary of fusion ``inst`` whose fused body's
    columns are ``body``, by XLA's rules (``_Analysis._fusion_of``: each parameter's users
    say what of it is read); None where a parameter is a tuple or a nested fusion reads one.
    Whole columns are joined and split in C: a loop in Python runs over the slicing ops only.
    """
    read = _read_bytes(body)
    if read is None:
        return None
    written = _written_from(inst, *_root_writes(body))
    return None if written is None else (read, written)


def _read_bytes(body: BodyColumns) -> int | None:
    """The bytes read at the boundary of the fusion whose fused body is ``body`` (see
    :func:`fusion_bytes`)."""
    names, shapes, opcodes, lists = body.names, body.shapes, body.opcodes, body.operand_lists
    is_param = list(map("parameter".__eq__, opcodes))
    param_shapes = list(compress(shapes, is_param))
    if "\n(" in "\n" + "\n".join(param_shapes):
        return None  # a tuple, read through its get-tuple-elements: the rules walk them
    size = {text: measured_text(text)[_SIZE] for text in set(param_shapes)}
    size_of = dict(zip(compress(names, is_param), map(size.__getitem__, param_shapes)))
    read = 0
    # Each broadcast or reshape of a parameter reads it whole again.
    reread = list(compress(lists, map(_REREAD.__contains__, opcodes)))
    joined = ",".join(reread)
    if joined.count(",") == len(reread) - 1:  # one operand each, as XLA makes them
        read += sum(map(size_of.get, joined.split(","), repeat(0)))
    else:
        for text in reread:
            read += sum(map(size_of.get, dict.fromkeys(text.split(",")), repeat(0)))
    # Any other user reads it whole, once for all of them.
    others = compress(lists, map(operator.not_, map(_READ_APART.__contains__, opcodes)))
    trivial = size_of.keys() & ",".join(others).split(",")
    apart = () if _READ_APART_ONCE.isdisjoint(opcodes) else range(len(opcodes))
    for k in compress(apart, map(_READ_APART_ONCE.__contains__, opcodes)):
        op = opcodes[k]
        operands = dict.fromkeys(lists[k].split(","))
        if op == "fusion":
            if not size_of.keys().isdisjoint(operands):
                return None  # read through the nested fusion's own parameter: the rules
            continue
        first = next(iter(operands))
        for name in size_of.keys() & operands.keys():
            if op == "slice" or (op == "dynamic-slice" and first == name):
                read += measured_text(shapes[k])[_SIZE]
            elif first != name:  # an index of a dynamic slice, the update of a DUS
                trivial.add(name)
    read += sum(map(size_of.__getitem__, trivial))
    for k in _positions(opcodes, "constant"):
        entry = measured_text(shapes[k])
        if entry[_ELEMENTS] > 1:  # IMMEDIATE_CONSTANT_MAX_ELEMENTS
            read += entry[_SIZE]
    return read


# What an array output of a fused body writes, as _root_writes says it: the whole array
# (WHOLE), nothing that can be priced (MALFORMED: a dynamic-update-slice without its update,
# which the rule flags), else the bytes of a dynamic-update-slice's update (updated in place).
_WHOLE = -2
_MALFORMED = -1


def _root_writes(body: BodyColumns) -> tuple[int, list[int | None] | None]:
    """What the body's root writes, read from the body alone so that the fusion's own shape
    can be applied later (:func:`_written_from`): as one array (a code, see _WHOLE), and,
    where the root is a tuple, as each of its operands (None for an operand without a name:
    the fusion's output is counted whole there), else None."""
    opcodes, lists = body.opcodes, body.operand_lists
    root = body.root
    as_array = _array_writes(body, root)
    if opcodes[root] != "tuple":
        return as_array, None
    outputs = lists[root].split(",")
    if "dynamic-update-slice" not in opcodes:
        return as_array, [_WHOLE if name else None for name in outputs]
    position = dict(zip(body.names, range(len(body.names))))
    return as_array, [_array_writes(body, position[name]) if name else None for name in outputs]


def _array_writes(body: BodyColumns, producer: int) -> int:
    """What an array output made by op ``producer`` writes (a code, see _WHOLE)."""
    if body.opcodes[producer] != "dynamic-update-slice":
        return _WHOLE
    operands = body.operand_lists[producer].split(",")
    if len(operands) < 2:
        return _MALFORMED
    return measured_text(body.shapes[body.names.index(operands[1])])[_SIZE]


def _written_from(inst: Instruction, as_array: int, outputs: list[int | None] | None) -> int | None:
    """The bytes fusion ``inst`` writes, from what its body's root writes (_root_writes): each
    array it outputs, a dynamic-update-slice's update only (the rest is updated in place);
    None for a dynamic-update-slice without one (malformed: the rule flags it)."""
    shape = inst.shape
    if not shape.is_tuple:
        return _bytes_of(as_array, _size_of(inst))
    total = 0
    for i, sub in enumerate(shape.tuple_shapes):
        code = outputs[i] if outputs is not None and i < len(outputs) else None
        if code is not None and not sub.is_tuple:
            written = _bytes_of(code, shape_size(sub))
            if written is None:
                return None
            total += written
        else:
            total += sum(shape_size(leaf) for leaf in _array_subshapes(sub))
    return total


def _bytes_of(code: int, size: int) -> int | None:
    """The bytes an array output of ``size`` bytes writes, by its code (see _WHOLE)."""
    if code == _WHOLE:
        return size
    if code == _MALFORMED:
        return None
    return code

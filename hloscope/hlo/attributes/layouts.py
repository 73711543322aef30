"""Buffers and layouts: ``output_to_operand_aliasing``, the module's ``input_output_alias`` and
``buffer_donor``, ``entry_computation_layout``, and the shape- and literal-valued attributes.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..errors import DecodeError
from ..shape import Shape, parse_shape, parse_shape_prefix
from ._grammar import ValueCursor, parse_or_raise, with_index_comments
from ._split import SPLIT_TOKENS

__all__ = [
    "OperandAlias",
    "ParameterAlias",
    "BufferDonor",
    "ComputationLayout",
    "ShapedLiteral",
]


class OperandAlias(NamedTuple):
    """One entry of ``output_to_operand_aliasing``: output ``{i}`` shares operand ``n``'s buffer."""

    output_index: tuple[int, ...]
    operand: int
    operand_index: tuple[int, ...]


class ParameterAlias(NamedTuple):
    """One entry of the module's ``input_output_alias``; ``kind`` is may-alias or must-alias."""

    output_index: tuple[int, ...]
    parameter: int
    parameter_index: tuple[int, ...]
    kind: str = "may-alias"


class BufferDonor(NamedTuple):
    """One entry of the module's ``buffer_donor``: a parameter buffer XLA may reuse."""

    parameter: int
    parameter_index: tuple[int, ...]


class ComputationLayout(NamedTuple):
    """``entry_computation_layout={(p0, p1)->result}``: entry parameter and result shapes."""

    parameters: tuple[Shape, ...]
    result: Shape

    def __str__(self) -> str:
        params = with_index_comments([_shape_text(s) for s in self.parameters])
        return "{(" + params + ")->" + _shape_text(self.result) + "}"


def _shape_text(shape: Shape) -> str:
    """A shape as XLA prints it in layouts, index comments in tuples included."""
    if shape.is_tuple:
        return "(" + with_index_comments([_shape_text(s) for s in shape.tuple_shapes]) + ")"
    return str(shape)


class ShapedLiteral(NamedTuple):
    """A custom-call ``literal=``: its shape and value (a numpy array, or a tuple of them)."""

    shape: Shape
    value: Any


# --- aliasing, layouts, shapes, literals --------------------------------------------------


def _alias_head(c: ValueCursor) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """``{0}: (1, {2}`` of an aliasing entry: output index, operand or parameter, its index."""
    output_index = c.int_list()
    c.expect(":")
    c.expect("(")
    number = c.int()
    c.expect(",")
    return output_index, number, c.int_list()


def decode_output_to_operand_aliasing(raw: str, opcode: str | None) -> list[OperandAlias]:
    """``{{0}: (1, {}), {1}: (0, {0})}``."""

    def parse(c: ValueCursor) -> list[OperandAlias]:
        def one() -> OperandAlias:
            output_index, operand, operand_index = _alias_head(c)
            c.expect(")")
            return OperandAlias(output_index, operand, operand_index)

        return c.comma_list("{", "}", one)

    return parse_or_raise(parse, raw)


def decode_input_output_alias(raw: str, opcode: str | None) -> list[ParameterAlias]:
    """``{ {0}: (0, {}, may-alias), {1}: (1, {}, must-alias) }``; the kind is optional."""

    def parse(c: ValueCursor) -> list[ParameterAlias]:
        def one() -> ParameterAlias:
            output_index, parameter, parameter_index = _alias_head(c)
            kind = "may-alias"
            if c.accept(","):
                at = c.skip()
                kind = c.ident()
                if kind not in ("may-alias", "must-alias"):
                    raise DecodeError(f"expected may-alias or must-alias, found {kind!r}", at)
            c.expect(")")
            return ParameterAlias(output_index, parameter, parameter_index, kind)

        return c.comma_list("{", "}", one)

    return parse_or_raise(parse, raw)


def decode_buffer_donor(raw: str, opcode: str | None) -> list[BufferDonor]:
    """``{ (0, {}), (1, {0}) }``."""

    def parse(c: ValueCursor) -> list[BufferDonor]:
        def one() -> BufferDonor:
            c.expect("(")
            parameter = c.int()
            c.expect(",")
            index = c.int_list()
            c.expect(")")
            return BufferDonor(parameter, index)

        return c.comma_list("{", "}", one)

    return parse_or_raise(parse, raw)


def _shape_at(c: ValueCursor) -> Shape:
    shape, c.pos = parse_shape_prefix(c.text, c.skip())
    return shape


def decode_entry_computation_layout(raw: str, opcode: str | None) -> ComputationLayout:
    def parse(c: ValueCursor) -> ComputationLayout:
        c.expect("{")
        params = c.comma_list("(", ")", lambda: _shape_at(c))
        c.expect("->")
        result = _shape_at(c)
        c.expect("}")
        return ComputationLayout(tuple(params), result)

    return parse_or_raise(parse, raw)


def decode_shape_list(raw: str, opcode: str | None) -> tuple[Shape, ...]:
    def parse(c: ValueCursor) -> tuple[Shape, ...]:
        return tuple(c.comma_list("{", "}", lambda: _shape_at(c)))

    return parse_or_raise(parse, raw)


def decode_shape(raw: str, opcode: str | None) -> Shape:
    return parse_shape(raw)


def decode_literal(raw: str, opcode: str | None) -> ShapedLiteral:
    """``literal=s32[2]{0} {1, 2}``, or a tuple ``( s32[2]{0} {1, 2}, pred[] true )``."""
    from ..literals import parse_literal

    def value_of(text: str, start: int, end: int, shape: Shape) -> Any:
        body = text[start:end].strip()
        lead = start + (len(text[start:end]) - len(text[start:end].lstrip()))
        try:
            return parse_literal(body, shape)
        except DecodeError as e:
            raise DecodeError(e.message, lead + e.offset) from None

    if raw.startswith("("):
        c = ValueCursor(raw)
        shapes, values = [], []

        def element() -> None:
            shape = _shape_at(c)
            start = c.pos
            end = _literal_end(raw, start)
            shapes.append(shape)
            values.append(value_of(raw, start, end, shape))
            c.pos = end

        c.comma_list("(", ")", element)
        c.done()
        return ShapedLiteral(Shape("tuple", tuple_shapes=tuple(shapes)), tuple(values))
    shape, end = parse_shape_prefix(raw, 0)
    return ShapedLiteral(shape, value_of(raw, end, len(raw), shape))


def _literal_end(text: str, pos: int) -> int:
    """End of one element literal inside a tuple literal: the next ',' or ')' at depth 0."""
    depth = 0
    for m in SPLIT_TOKENS.finditer(text, pos):
        ch = m.group()[0]
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            if depth == 0:
                return m.start()
            depth -= 1
        elif ch == "," and depth == 0:
            return m.start()
    raise DecodeError("unterminated tuple literal", pos)

"""Decoders for the plain value grammars: numbers, booleans, identifiers, strings, lists of
them, and computation names.

Every decoder has the signature ``decode(raw, opcode) -> value`` and raises
:class:`~hloscope.hlo.errors.DecodeError` with an offset into ``raw``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import _lex
from ..errors import DecodeError
from ..escapes import quoted_string_at
from ._grammar import INT, NUMBER, ValueCursor, parse_or_raise, to_float

__all__ = ["InlineComputation"]


@dataclass(frozen=True, slots=True)
class InlineComputation:
    """A computation written inline as ``{ instr... }`` instead of by name (Canonical printing).

    The parser, not this module, turns the body into a :class:`~hloscope.hlo.model.Computation`.
    """

    text: str

    def __str__(self) -> str:
        return self.text


# One regex for the common flat forms; nested or commented lists take the cursor.
_INT_LIST_RE = re.compile(r"\{\s*(-?\d+(?:\s*,\s*-?\d+)*)?\s*\}")
_BOOL_LIST_RE = re.compile(r"\{\s*((?:true|false)(?:\s*,\s*(?:true|false))*)?\s*\}")


def decode_int(raw: str, opcode: str | None) -> int:
    if INT.fullmatch(raw) is None:
        raise DecodeError(f"expected an integer, found {raw[:20]!r}", 0)
    return int(raw)


def decode_float(raw: str, opcode: str | None) -> float:
    m = NUMBER.fullmatch(raw)
    if m is None:
        raise DecodeError(f"expected a number, found {raw[:20]!r}", 0)
    return to_float(raw)


def decode_bool(raw: str, opcode: str | None) -> bool:
    if raw == "true":
        return True
    if raw == "false":
        return False
    raise DecodeError(f"expected true or false, found {raw[:20]!r}", 0)


def decode_enum(raw: str, opcode: str | None) -> str:
    if _lex.NAME_RE.fullmatch(raw) is None:
        raise DecodeError(f"expected an identifier, found {raw[:20]!r}", 0)
    return raw


def decode_string(raw: str, opcode: str | None) -> str:
    value, end = quoted_string_at(raw, 0)
    if end != len(raw):
        raise DecodeError("unexpected text after string", end)
    return value


def decode_int_list(raw: str, opcode: str | None) -> tuple:
    m = _INT_LIST_RE.fullmatch(raw)
    if m is not None:
        body = m.group(1)
        return tuple(int(x) for x in body.split(",")) if body else ()

    # Nested lists: collective-permute's combined form `slice_sizes={{1,2},{3,4}}`.
    def nested(c: ValueCursor) -> tuple:
        return tuple(c.comma_list("{", "}", lambda: nested(c) if c.at("{") else c.int()))

    return parse_or_raise(nested, raw)


def decode_bool_list(raw: str, opcode: str | None) -> tuple[bool, ...]:
    m = _BOOL_LIST_RE.fullmatch(raw)
    if m is None:
        raise DecodeError(f"expected {{true,false,...}}, found {raw[:20]!r}", 0)
    body = m.group(1)
    return tuple(x.strip() == "true" for x in body.split(",")) if body else ()


def decode_bool_or_list(raw: str, opcode: str | None) -> bool | tuple[bool, ...]:
    return decode_bool_list(raw, opcode) if raw.startswith("{") else decode_bool(raw, opcode)


def decode_enum_list(raw: str, opcode: str | None) -> tuple[str, ...]:
    return parse_or_raise(lambda c: tuple(c.comma_list("{", "}", c.ident)), raw)


def _is_inline_body(raw: str) -> bool:
    return raw.startswith("{") and "=" in raw


def decode_computation(raw: str, opcode: str | None) -> str | list[str] | InlineComputation:
    """``to_apply=%add``: the name without ``%``. ``calls=%a, %b`` gives a list."""
    if _is_inline_body(raw):
        return InlineComputation(raw)
    if raw.startswith("{"):  # `calls={%a, %b}`
        return decode_computation_list(raw, opcode)
    c = ValueCursor(raw)
    names = [c.name()]
    while c.accept(","):
        names.append(c.name())
    c.done()
    return names[0] if len(names) == 1 else names


def decode_computation_list(raw: str, opcode: str | None) -> list:
    """``{%a, %b}``; entries may also be inline bodies ``{ ... }``."""

    def parse(c: ValueCursor) -> list:
        def entry() -> str | InlineComputation:
            return InlineComputation(c.balanced()) if c.at("{") else c.name()

        return c.comma_list("{", "}", entry)

    return parse_or_raise(parse, raw)


def decode_raw(raw: str, opcode: str | None) -> str:
    """Attributes kept as text (``origin``, ``sparsity``...); checked only for balance."""
    return raw

"""The cursor the value grammars are written with, and small helpers they share.

:class:`ValueCursor` extends the generic :class:`~hloscope.hlo._lex.Cursor` with the number,
string and bracketed-group tokens attribute values use. Each decoder is then a few calls:
``c.comma_list("{", "}", c.int)`` reads ``{1, 2, 3}``.
"""

from __future__ import annotations

import builtins
import math
import re
from collections.abc import Callable, Iterable
from typing import Any

from .. import _lex
from ..errors import DecodeError
from ..escapes import quoted_string_at

__all__ = [
    "ValueCursor",
    "parse_or_raise",
    "value_end",
    "to_float",
    "ints",
    "with_index_comments",
    "INT",
    "NUMBER",
]

INT = re.compile(r"-?\d+")
NUMBER = re.compile(r"-?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|nan(?:\(0x[0-9a-fA-F]+\))?)")
# A bare value runs up to a space, a comma or a bracket.
_BARE_VALUE = re.compile(r"[^\s,{}()\[\]]+")


class ValueCursor(_lex.Cursor):
    """A :class:`~hloscope.hlo._lex.Cursor` over one attribute value."""

    __slots__ = ()

    def int(self) -> int:
        return int(self.match(INT, "an integer").group())

    # ``int`` below is the method above, inside this class body: hence ``builtins.int``.
    def number(self) -> float | builtins.int:
        text = self.match(NUMBER, "a number").group()
        if INT.fullmatch(text):
            return int(text)
        return to_float(text)

    def string(self) -> str:
        value, self.pos = quoted_string_at(self.text, self.skip())
        return value

    def int_list(self, open_: str = "{", close: str = "}") -> tuple[builtins.int, ...]:
        return tuple(self.comma_list(open_, close, self.int))

    def balanced(self) -> str:
        """The raw text of one bracketed group, string, or bare token."""
        start = self.skip()
        self.pos = value_end(self.text, start)
        return self.text[start : self.pos]


def to_float(text: str) -> float:
    """A float as XLA prints it (``nan`` may carry a payload, which Python cannot keep)."""
    if "nan" in text:
        return -math.nan if text.startswith("-") else math.nan
    return float(text)


def value_end(text: str, pos: int) -> int:
    """End of the bracketed group / string at ``pos``, or of a bare token (stops at space ,})."""
    if pos >= len(text):
        raise DecodeError("expected a value, found end of text", pos)
    ch = text[pos]
    if ch == '"':
        return quoted_string_at(text, pos)[1]
    if ch in "{([":
        close = _lex.find_closing(text, pos, _lex.VALUE_TOKENS)
        if close < 0:
            raise DecodeError(f"unclosed {ch!r}", pos)
        return close + 1
    m = _BARE_VALUE.match(text, pos)
    if m is None:
        raise DecodeError(f"expected a value, found {text[pos : pos + 12]!r}", pos)
    return m.end()


def parse_or_raise(parse: Callable[[ValueCursor], Any], raw: str) -> Any:
    """Run the grammar ``parse`` over all of ``raw`` (text left over is an error)."""
    c = ValueCursor(raw)
    value = parse(c)
    c.done()
    return value


def ints(values: Iterable[int]) -> str:
    """``1,2,3``: how XLA joins integers inside brackets."""
    return ",".join(map(str, values))


def with_index_comments(items: list[str]) -> str:
    """Join tuple elements as XLA does: ``/*index=N*/`` before every 5th one."""
    return ", ".join(
        (f"/*index={i}*/" if i and i % 5 == 0 else "") + item for i, item in enumerate(items)
    )

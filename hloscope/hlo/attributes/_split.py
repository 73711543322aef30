"""Splitting attribute text into ``(name, raw value, offset)`` at top-level commas.

``kind=kLoop, calls=%f, metadata={op_name="a, b"}`` has three attributes: commas inside
brackets, strings and comments do not count. ``backend_config={...}`` (and brace values of
``frontend_attributes``) are lexed as XLA's ``LexJsonDict`` does: only braces and
double-quoted strings matter inside them.
"""

from __future__ import annotations

import re

from .. import _lex
from ..errors import DecodeError

__all__ = ["split_attributes", "SPLIT_TOKENS", "SIMPLE_VALUE", "SIMPLE_SEPARATOR", "json_dict_end"]


# The tokens that matter for finding top-level commas. Everything else is skipped by the regex
# engine in C: a line with a 2 kB backend_config costs a handful of Python steps, not 2000.
# Whole strings and comments come first so that brackets and commas inside them are jumped
# over; a lone quote or '/*' can only match when the string or comment is unterminated.
SPLIT_TOKENS = re.compile(_lex.SKIPPED + r"""|[()\[\]{},"']|/\*""", re.S)
# Inside a LexJsonDict region only braces and double-quoted strings count (§1).
_JSON_TOKEN = re.compile(_lex.STRING + r'|[{}"]', re.S)
_ATTR_NAME = re.compile(_lex.WS + "(" + _lex.NAME + ")=", re.S)
_CLOSER_OF = {")": "(", "]": "[", "}": "{"}

#: The value forms nearly every attribute is written in: a string, one flat ``{...}`` group
#: (strings allowed inside, no other brackets, no comments) or a bare token. The one-regex
#: fast paths (here and in :mod:`._mapping`) are built from it.
SIMPLE_VALUE = (
    _lex.STRING
    + r"""|\{[^{}"\\/()\[\]']*(?:"""
    + _lex.STRING
    + r"""[^{}"\\/()\[\]']*)*\}"""
    + r"""|[^\s,{}()\[\]"'/]+"""
)
#: What separates two attributes in the fast form: a comma and one space.
SIMPLE_SEPARATOR = r", (?=\S)"
_SIMPLE_ATTR = re.compile(
    "(" + _lex.NAME + ")=(" + SIMPLE_VALUE + ")(?:" + SIMPLE_SEPARATOR + r"|\Z)", re.S
)

# Brace values that XLA lexes with LexJsonDict: raw text, not tokens.
_JSON_VALUED = frozenset({"backend_config"})
_JSON_VALUED_ENTRIES = frozenset({"frontend_attributes"})


def json_dict_end(text: str, pos: int) -> int:
    """Index just past the ``}`` matching the ``{`` at ``text[pos]`` (LexJsonDict rules)."""
    depth = 0
    search = _JSON_TOKEN.search
    at = pos
    while True:
        m = search(text, at)
        if m is None:
            raise DecodeError("unterminated '{'", pos)
        tok = m.group()
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
            if depth == 0:
                return m.end()
        elif tok == '"':
            raise DecodeError("unterminated string", m.start())
        at = m.end()


def split_attributes(text: str) -> list[tuple[str, str, int]]:
    """Split attribute text into ``(name, raw_value, value_offset)`` triples, in file order.

    ``text`` is what follows an instruction's operand list with the leading ``", "`` removed
    (or a module header's attribute text). Commas split attributes only at the top level; a
    piece that does not start with ``name=`` continues the previous attribute, which is how
    ``calls=%a, %b`` keeps both names. Raw values have surrounding whitespace stripped;
    ``value_offset`` is where the raw value starts in ``text``.

    Raises :class:`DecodeError` (with an offset into ``text``) for unbalanced brackets,
    unterminated strings or comments, and text that does not start with an attribute name.
    """
    if not text or text.isspace():
        return []
    # Fast path: nearly every line is `name=value, name=value` where each value is a bare
    # token, a string, or one flat {...} group. One regex match per attribute; anything
    # else (nesting, brackets, comments, odd spacing) takes the general path below.
    out: list[tuple[str, str, int]] = []
    pos, end = 0, len(text)
    match = _SIMPLE_ATTR.match
    while True:
        m = match(text, pos)
        if m is not None:
            out.append((m.group(1), m.group(2), m.start(2)))
            pos = m.end()
        else:
            # A JSON backend_config (nested braces and brackets: not the simple form) is one
            # LexJsonDict value, as the general path reads it: a fusion's config after its
            # metadata would otherwise send the whole line there.
            pos = _json_item(text, pos, out)
            if pos < 0:
                return _split_general(text)
        if pos == end:
            return out


_JSON_ITEM = "backend_config={"


def _json_item(text: str, pos: int, out: list[tuple[str, str, int]]) -> int:
    """Read ``backend_config={...}`` at ``pos`` into ``out`` and return where the next item
    starts (the end of the text, or past the ``", "`` before it); -1 where the text there is
    anything else, which the general path reads (or refuses)."""
    if not text.startswith(_JSON_ITEM, pos):
        return -1
    start = pos + len(_JSON_ITEM) - 1
    try:
        stop = json_dict_end(text, start)
    except DecodeError:
        return -1
    end = len(text)
    if stop == end:
        out.append(("backend_config", text[start:stop], start))
        return stop
    # Then ", " and the next item, as SIMPLE_SEPARATOR has it.
    if not text.startswith(", ", stop) or stop + 2 == end or text[stop + 2].isspace():
        return -1
    out.append(("backend_config", text[start:stop], start))
    return stop + 2


def _split_general(text: str) -> list[tuple[str, str, int]]:
    cuts: list[int] = []  # offsets of top-level commas
    stack: list[tuple[str, int]] = []
    search = SPLIT_TOKENS.search
    piece_start = 0
    pos = 0
    while True:
        m = search(text, pos)
        if m is None:
            break
        tok = m.group()
        ch = tok[0]
        if ch == ",":
            if not stack:
                cuts.append(m.start())
                piece_start = m.end()
        elif ch == "{":
            start = m.start()
            if start and text[start - 1] == "=" and _json_context(text, piece_start, stack):
                pos = json_dict_end(text, start)
                continue
            stack.append(("{", start))
        elif ch in "([":
            stack.append((ch, m.start()))
        elif ch in ")]}":
            if not stack or stack[-1][0] != _CLOSER_OF[ch]:
                raise DecodeError(f"unbalanced {ch!r}", m.start())
            stack.pop()
        elif len(tok) == 1 and ch in "\"'":
            raise DecodeError("unterminated string", m.start())
        elif tok == "/*":
            raise DecodeError("unterminated comment", m.start())
        pos = m.end()
    if stack:
        opener, at = stack[-1]
        raise DecodeError(f"unclosed {opener!r}", at)
    return _pieces_to_attributes(text, cuts)


def _json_context(text: str, piece_start: int, stack: list[tuple[str, int]]) -> bool:
    """Is the ``{`` after an ``=`` the start of a LexJsonDict value?"""
    depth = len(stack)
    if depth > 1:
        return False
    m = _ATTR_NAME.match(text, piece_start)
    if m is None:
        return False
    name = m.group(1)
    if depth == 0:
        return name in _JSON_VALUED
    # depth 1: a value inside frontend_attributes={key={raw}}
    return name in _JSON_VALUED_ENTRIES and stack[0][1] == m.end()


def _pieces_to_attributes(text: str, cuts: list[int]) -> list[tuple[str, str, int]]:
    out: list[list] = []  # [name, value_start, value_end]
    bounds = [-1, *cuts, len(text)]
    for i in range(len(bounds) - 1):
        start, end = bounds[i] + 1, bounds[i + 1]
        m = _ATTR_NAME.match(text, start, end)
        if m is not None and not (out and _continues_mesh(text, out[-1], m.group(1))):
            out.append([m.group(1), m.end(), end])
            continue
        if not out:
            raise DecodeError("expected an attribute 'name=value'", _skip_space(text, start))
        if start == end or text[start:end].isspace():
            raise DecodeError("expected an attribute after ','", bounds[i])
        out[-1][2] = end  # a continuation such as the second name of calls=%a, %b
    result = []
    for name, vstart, vend in out:
        raw = text[vstart:vend]
        stripped = raw.strip()
        offset = vstart + (len(raw) - len(raw.lstrip())) if stripped else vstart
        result.append((name, stripped, offset))
    return result


def _continues_mesh(text: str, previous: list, name: str) -> bool:
    # Mesh-based replica groups print as `mesh[a=4,b=2], device_ids=(...) {a}`: the
    # `device_ids=` after the top-level comma is part of the previous value.
    return name == "device_ids" and text[previous[1] : previous[1] + 13].lstrip().startswith(
        ("mesh[", "maximal_mesh[")
    )


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos

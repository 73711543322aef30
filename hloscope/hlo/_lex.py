"""The lexical pieces of HLO text, defined once: names, strings, comments, brackets, lists.

Every reader in :mod:`hloscope.hlo` (the line parser, shapes, literals, attribute values)
builds its regular expressions from the pattern *strings* here, so a rule such as "what is a
name" has one definition. Hot paths still compile their own combined expressions (one C-level
match per line is what keeps parsing fast), but they compose them from these pieces.

The rules follow XLA's ``hlo_lexer.cc``:

* A name (instruction, computation, attribute, identifier) is
  ``[A-Za-z_][A-Za-z0-9_.-]*``, ASCII only: XLA tests characters with
  ``absl::ascii_isalnum``, so ``é`` or ``名`` are not name characters (Python's ``\\w``
  would accept them, which is why it is not used).
* A string is double-quoted with C backslash escapes (decoded by :mod:`.escapes`).
* Whitespace may hold ``/* ... */`` comments anywhere; ``//`` comments run to the end of
  the line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol, TypeVar, cast

from .errors import DecodeError

__all__ = [
    "NAME",
    "NAME_RE",
    "quoted",
    "STRING",
    "STRING_RE",
    "SINGLE_QUOTED",
    "BLOCK_COMMENT",
    "LINE_COMMENT",
    "SKIPPED",
    "WS",
    "WS_RE",
    "InfallibleMatch",
    "infallible_match",
    "match_ws",
    "skip_ws",
    "string_at",
    "invalid_character",
    "is_plain_ascii",
    "BRACKET_TOKENS",
    "VALUE_TOKENS",
    "find_closing",
    "split_top_level",
    "Cursor",
]

T = TypeVar("T")

# --- pattern strings (compose these; compile with re.S where a comment may span lines) ----

#: An HLO name or identifier (ASCII only, as XLA's ``IsIdentifierChar``).
NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"


def quoted(quote: str = '"', newline: bool = True, capture: bool = False) -> str:
    """The pattern of a ``quote``-delimited string with backslash escapes.

    Written "unrolled" and possessive (``"[^"\\\\]*+(?:\\\\.[^"\\\\]*+)*+"``) so the regex
    engine runs through the plain characters and never backtracks into them. With
    ``newline=False`` a raw line break ends the match, which line-based scanners use so that an
    unterminated string cannot swallow the rest of the file. With ``capture`` the body
    (between the quotes, still escaped) is a group. Compile with ``re.S`` so an escaped line
    break is one escape.
    """
    plain = "[^" + quote + r"\\" + ("" if newline else r"\n") + "]*+"
    body = plain + r"(?:\\." + plain + ")*+"
    return quote + ("(" + body + ")" if capture else body) + quote


#: A double-quoted string (what XLA's ``LexString`` reads).
STRING = quoted('"')
#: A single-quoted string (mesh axis names, and what the attribute splitter skips over).
SINGLE_QUOTED = quoted("'")
BLOCK_COMMENT = r"/\*.*?\*/"
LINE_COMMENT = r"//[^\n]*"
#: Every token whose inside does not count when scanning for brackets, commas or line breaks:
#: both kinds of strings and both kinds of comments, each matched whole so that the scan jumps
#: over it. Scanners put it first in their alternation and add the characters they look for.
SKIPPED = STRING + "|" + SINGLE_QUOTED + "|" + BLOCK_COMMENT + "|" + LINE_COMMENT
#: Whitespace and ``/* */`` comments, possibly none.
WS = r"(?:\s+|" + BLOCK_COMMENT + r")*"

NAME_RE = re.compile(NAME)
STRING_RE = re.compile(STRING, re.S)
WS_RE = re.compile(WS, re.S)


class InfallibleMatch(Protocol):
    """The ``match`` method of a pattern that also matches the empty string: never ``None``."""

    def __call__(self, string: str, pos: int = 0, /) -> re.Match[str]: ...


def infallible_match(pattern: re.Pattern[str]) -> InfallibleMatch:
    """``pattern.match``, typed as never returning ``None`` (checked: ``pattern`` matches "").

    Whitespace skippers call ``PATTERN.match(text, pos).end()`` on hot paths; a pattern that
    can match nothing always matches, so the ``None`` case a type checker asks about cannot
    happen, and this says so once instead of a check per call.
    """
    if pattern.match("") is None:
        raise ValueError(f"{pattern.pattern!r} does not match the empty string")
    return cast(InfallibleMatch, pattern.match)


#: ``WS_RE.match``: the whitespace (and comments) at a position, possibly none.
match_ws = infallible_match(WS_RE)
_skip = match_ws


def skip_ws(text: str, pos: int) -> int:
    """Index of the first character at or after ``pos`` that is not whitespace or a comment."""
    return _skip(text, pos).end()


def string_at(text: str, pos: int) -> tuple[str, int] | None:
    """The body (still escaped) and end index of the double-quoted string at ``text[pos]``."""
    m = STRING_RE.match(text, pos)
    if m is None:
        return None
    return text[pos + 1 : m.end() - 1], m.end()


# --- characters XLA's lexer refuses ---------------------------------------------------------

# XLA's HloLexer takes only ' ', '\t', '\n' and '\r' as whitespace and reads any other byte
# that starts no token as an error, while a string or comment may hold any character but NUL.
# Python's ``\s``, ``str.isspace`` and ``str.splitlines`` take more (\x0b, \x0c, \x1c-\x1f,
# \x85, \u2028...), so a text holding them outside strings and comments is refused before any
# pattern of the parser could read them as blanks or line ends.
_CONTROLS = tuple(chr(c) for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F))
# Every other byte: deleting these from an ASCII text leaves exactly its control characters.
_NOT_CONTROLS = bytes(c for c in range(256) if chr(c) not in _CONTROLS)
# Strings and comments whole (as XLA's lexer reads them: a '//' comment ends at a line break),
# else one character that is neither printable ASCII nor XLA whitespace.
_STRINGS_COMMENTS_OR_INVALID = re.compile(
    STRING + "|" + SINGLE_QUOTED + "|" + BLOCK_COMMENT + r"|//[^\n\r]*|[^\t\n\r -~]", re.S
)


def is_plain_ascii(data: bytes) -> bool:
    """Whether ``data`` is ASCII with no character XLA's lexer refuses anywhere (what printed
    HLO is): the text of such bytes needs no :func:`invalid_character` scan. The bytes read
    from a file are tested as they are, without a second copy of a 50 MB text to test."""
    return data.isascii() and not data.translate(None, _NOT_CONTROLS)


# A slice of this many characters is encoded and tested while it is in the cache: one copy of
# a whole 50 MB text to test took twice as long.
_SLICE = 1 << 20


def _plain_in_slices(text: str) -> bool:
    """:func:`is_plain_ascii` of an ASCII ``text``'s bytes, a slice at a time."""
    for start in range(0, len(text), _SLICE):
        if text[start : start + _SLICE].encode("ascii").translate(None, _NOT_CONTROLS):
            return False
    return True


def invalid_character(text: str) -> int:
    """Offset of the first character outside strings and comments that XLA's lexer rejects
    (a control character other than tab, line feed and carriage return, DEL, anything not
    ASCII), or -1 when there is none.

    Printed HLO is ASCII without control characters, which scans in C tell (``isascii`` is
    free for a ``str``; an ASCII ``str`` encodes by a copy, and one ``bytes.translate`` that
    deletes all but the control characters leaves nothing: a third of the time of a memchr
    per control character); only other texts are tokenized to see whether such characters
    sit inside strings or comments, where XLA accepts them.
    """
    if text.isascii() and _plain_in_slices(text):
        return -1
    for m in _STRINGS_COMMENTS_OR_INVALID.finditer(text):
        if m.end() - m.start() == 1:
            return m.start()
    return -1


# --- brackets -----------------------------------------------------------------------------

#: Tokens for bracket matching in instruction text: strings and ``/* */`` comments are jumped
#: over whole; a lone ``"`` only matches when a string is unterminated (on its line).
BRACKET_TOKENS = re.compile(
    quoted('"', newline=False) + "|" + BLOCK_COMMENT + r'|[()\[\]{}]|"', re.S
)
#: Tokens for bracket matching inside attribute values, which may also hold single-quoted
#: strings (mesh axes) and ``//`` comments.
VALUE_TOKENS = re.compile(
    SKIPPED + r"""|[()\[\]{}"']""",
    re.S,
)
_CLOSER = {"(": ")", "[": "]", "{": "}"}


def find_closing(text: str, pos: int, tokens: re.Pattern = BRACKET_TOKENS) -> int:
    """Index of the bracket that closes the one at ``text[pos]`` (one of ``([{``).

    Strings and comments (as ``tokens`` defines them) are skipped, so ``{"}"}`` is one group.
    Returns -1 when the text ends first, or a string in it is unterminated. Raises
    :class:`DecodeError` at a closer of the wrong kind (``{ ... )``).
    """
    stack = [_CLOSER[text[pos]]]
    for m in tokens.finditer(text, pos + 1):
        tok = m.group()
        if len(tok) != 1:
            continue  # a whole string or comment
        if tok in _CLOSER:
            stack.append(_CLOSER[tok])
        elif tok in ")]}":
            if tok != stack[-1]:
                raise DecodeError(f"expected {stack[-1]!r}, found {tok!r}", m.start())
            stack.pop()
            if not stack:
                return m.start()
        else:
            return -1  # a lone quote: an unterminated string
    return -1


_LIST_TOKENS = re.compile(STRING + r"|[()\[\]{},]", re.S)


def split_top_level(text: str) -> list[tuple[str, int]]:
    """Split ``text`` at commas outside brackets and strings: ``[(piece, offset), ...]``.

    ``"a, f(b, c), {d, e}"`` gives three pieces. Pieces keep their spaces; there is always at
    least one piece (``""`` gives ``[("", 0)]``), so callers can report empty items.
    """
    pieces = []
    depth = 0
    start = 0
    for m in _LIST_TOKENS.finditer(text):
        tok = m.group()
        if tok in "([{":
            depth += 1
        elif tok in ")]}":
            depth -= 1
        elif tok == "," and depth == 0:
            pieces.append((text[start : m.start()], start))
            start = m.end()
    pieces.append((text[start:], start))
    return pieces


# --- a cursor for small value grammars ------------------------------------------------------

_PERCENT_NAME = re.compile("%?(" + NAME + ")")


class Cursor:
    """Reads one piece of text left to right, skipping whitespace and comments between tokens.

    Errors are :class:`DecodeError` carrying the offset into ``text``, so the caller can point
    at the exact column. Grammars built on it stay a few lines each; :meth:`comma_list` is the
    one place that knows how ``{ item, item }`` lists are written.
    """

    __slots__ = ("text", "pos")

    def __init__(self, text: str, pos: int = 0) -> None:
        self.text = text
        self.pos = pos

    def skip(self) -> int:
        self.pos = _skip(self.text, self.pos).end()
        return self.pos

    def peek(self) -> str:
        pos = self.skip()
        return self.text[pos] if pos < len(self.text) else ""

    def at(self, token: str) -> bool:
        return self.text.startswith(token, self.skip())

    def accept(self, token: str) -> bool:
        if self.text.startswith(token, self.skip()):
            self.pos += len(token)
            return True
        return False

    def expect(self, token: str) -> None:
        if not self.accept(token):
            raise self.error(f"expected {token!r}")

    def error(self, message: str) -> DecodeError:
        pos = self.skip()
        if pos >= len(self.text):
            return DecodeError(f"{message}, found end of text", pos)
        return DecodeError(f"{message}, found {self.text[pos : pos + 12]!r}", pos)

    def match(self, regex: re.Pattern, what: str) -> re.Match:
        """Match ``regex`` at the next token and move past it (``what`` names it in errors)."""
        m = regex.match(self.text, self.skip())
        if m is None:
            raise self.error(f"expected {what}")
        self.pos = m.end()
        return m

    def ident(self) -> str:
        return self.match(NAME_RE, "an identifier").group()

    def name(self) -> str:
        """A computation or instruction name, with or without ``%`` (returned without)."""
        return self.match(_PERCENT_NAME, "a name").group(1)

    def comma_list(self, open_: str, close: str, item: Callable[[], T]) -> list[T]:
        """Read ``open_ item, item, ... close`` (possibly empty), calling ``item`` for each."""
        self.expect(open_)
        out: list[T] = []
        if self.accept(close):
            return out
        while True:
            out.append(item())
            if not self.accept(","):
                self.expect(close)
                return out

    def done(self) -> None:
        if self.skip() != len(self.text):
            raise self.error("unexpected text")

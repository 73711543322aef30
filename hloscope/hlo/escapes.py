"""C-style string escapes as XLA prints them (``absl::CEscape`` / ``CUnescape``).

XLA escapes every byte >= 0x80 as a 3-digit octal, so UTF-8 text such as ``é`` appears as
``\\303\\251``. To read it back we unescape to *bytes* first and then decode UTF-8.
"""

from __future__ import annotations

import re

from . import _lex
from .errors import DecodeError

__all__ = ["c_unescape", "c_escape", "quoted_string_at"]

_SIMPLE = {
    "n": 0x0A,
    "r": 0x0D,
    "t": 0x09,
    '"': 0x22,
    "'": 0x27,
    "\\": 0x5C,
    "a": 0x07,
    "b": 0x08,
    "f": 0x0C,
    "v": 0x0B,
    "?": 0x3F,
}
_ESCAPE_RE = re.compile(
    r"\\(?:([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.S
)


def c_unescape(body: str, offset: int = 0) -> str:
    """Decode the inside of a quoted string (without the quotes).

    ``offset`` is where ``body`` starts in the caller's text, so errors point at the right spot.
    """
    if "\\" not in body:
        return body
    out = bytearray()
    pos = 0
    for m in _ESCAPE_RE.finditer(body):
        out += body[pos : m.start()].encode("utf-8", "surrogatepass")
        octal, hex2, u4, u8, simple = m.groups()
        if octal is not None:
            value = int(octal, 8)
            if value > 0xFF:
                raise DecodeError("octal escape out of range", offset + m.start())
            out.append(value)
        elif hex2 is not None:
            out.append(int(hex2, 16))
        elif u4 is not None or u8 is not None:
            out += chr(int(u4 or u8, 16)).encode("utf-8", "surrogatepass")
        elif simple in _SIMPLE:
            out.append(_SIMPLE[simple])
        else:
            raise DecodeError(f"unknown escape \\{simple}", offset + m.start())
        pos = m.end()
    out += body[pos:].encode("utf-8", "surrogatepass")
    return out.decode("utf-8", "replace")


# The characters XLA's printer escapes by name; other bytes outside printable ASCII are octal.
_NAMED_ESCAPES = {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x22: '\\"', 0x27: "\\'", 0x5C: "\\\\"}


def c_escape(text: str) -> str:
    """Escape ``text`` the way XLA prints strings: C escapes, octal for bytes >= 0x80."""
    out = []
    for byte in text.encode("utf-8"):
        named = _NAMED_ESCAPES.get(byte)
        if named is not None:
            out.append(named)
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    return "".join(out)


_STRING_RE = re.compile(_lex.quoted('"', capture=True), re.S)


def quoted_string_at(text: str, pos: int) -> tuple[str, int]:
    """Read a double-quoted string starting at ``text[pos]``; return (decoded, end index)."""
    m = _STRING_RE.match(text, pos)
    if m is None:
        raise DecodeError("unterminated or missing string", pos)
    return c_unescape(m.group(1), pos + 1), m.end()

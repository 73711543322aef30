"""Text that is safe and fits on a terminal: one sanitiser and one way to shorten.

Everything hloscope prints to a terminal comes from files other programs wrote: metadata
strings can hold any byte (XLA escapes them as ``\\033``...), and a raw ESC would let a dump
change the window title, clear the screen or fake a hyperlink. :func:`printable` shows every
control character as an escape instead. :func:`shorten_middle` keeps the start and the end of
a long name (``wrapped_reduce…dow.1``), where kernel names carry their meaning.
"""

from __future__ import annotations

import re

__all__ = ["printable", "shorten_middle", "ELLIPSIS"]

ELLIPSIS = "\u2026"

# C0 controls except tab, DEL, C1 controls, and the Unicode line/paragraph separators and
# bidirectional overrides, which reorder or break what follows them on screen.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\x1b": "\\e"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control character shown as an escape (``\\e``, ``\\x07``...)."""
    if text.isprintable():  # the common case costs one C call
        return text
    return _CONTROL.sub(_escape, text.replace("\t", " "))


def shorten_middle(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters by replacing its middle with an ellipsis."""
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    keep = width - 1
    head = (keep + 1) // 2
    tail = keep - head
    return text[:head] + ELLIPSIS + (text[-tail:] if tail else "")

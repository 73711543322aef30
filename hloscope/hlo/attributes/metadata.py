"""Decoding and printing ``metadata={op_type="..." op_name="..." source_line=3}``.

Metadata is on nearly every instruction and is what most reports read, so the common text is
read with ONE regular expression: XLA always prints the fields in the order of
:func:`format_metadata`, space-separated, strings and integers only. Anything else (another
order, comments, ``profile_type``, keys from a newer XLA) takes the general item-by-item path,
which accepts everything the fast one does and gives the same value.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .. import _lex
from ..errors import DecodeError
from ..escapes import c_escape, c_unescape
from ..metadata import Metadata
from ._grammar import ValueCursor, ints
from ._values import decode_int_list

__all__ = [
    "format_metadata",
    "metadata_at",
    "decode_metadata",
    "FAST_METADATA",
    "metadata_from_match",
]

_MD_INT_KEYS = frozenset(
    {"source_line", "source_end_line", "source_column", "source_end_column", "stack_frame_id"}
)
_MD_STR_KEYS = frozenset(
    {"op_type", "op_name", "source_file", "deduplicated_name", "scheduling_name"}
)

# --- the fast path: the whole block in XLA's field order ------------------------------------
_STR_FIELDS = ("op_type", "op_name", "source_file")
_INT_FIELDS = ("source_line", "source_end_line", "source_column", "source_end_column")
_TAIL_STR_FIELDS = ("deduplicated_name", "scheduling_name")
_BODY = _lex.quoted('"', capture=True)
# An integer must end at a space or the closing brace, as the general path requires.
_INT = r"(-?\d+)(?=[ }])"


def _optional(key: str, value: str) -> str:
    # Possessive: once a field has matched, skipping it could not make the block match.
    return "(?: ?" + key + "=" + value + ")?+"


#: The pattern of a metadata block as XLA prints it (its own groups follow the field order).
FAST_METADATA = (
    r"\{"
    + "".join(_optional(k, _BODY) for k in _STR_FIELDS)
    + "".join(_optional(k, _INT) for k in _INT_FIELDS)
    + "".join(_optional(k, _BODY) for k in _TAIL_STR_FIELDS)
    + _optional("stack_frame_id", _INT)
    + r"\}"
)
_MD_FAST = re.compile(FAST_METADATA, re.S)
_STRING_GROUPS = (0, 1, 2, 7, 8)  # op_type, op_name, source_file, deduplicated/scheduling_name


def metadata_from_match(m: re.Match, first: int = 0) -> Metadata:
    """The :class:`Metadata` of a match of :data:`FAST_METADATA`, whose groups start after
    group ``first`` of ``m`` (escapes decoded)."""
    groups = m.groups() if first == 0 else m.groups()[first : first + 10]
    op_type, op_name, source_file, line, end_line, column, end_column, dedup, sched, frame = groups
    if m.string.find("\\", m.start(first), m.end(first)) >= 0:  # rare: escapes to decode
        op_type, op_name, source_file, dedup, sched = (
            c_unescape(groups[g], m.start(first + 1 + g)) if groups[g] else ""
            for g in _STRING_GROUPS
        )
    return Metadata(
        op_type or "",
        op_name or "",
        source_file or "",
        int(line) if line else 0,
        int(end_line) if end_line else 0,
        int(column) if column else 0,
        int(end_column) if end_column else 0,
        (),
        dedup or "",
        sched or "",
        int(frame) if frame else 0,
    )


# --- the general path: one key=value item at a time -----------------------------------------
# key=value with the common value forms; anything else goes through the cursor.
_MD_SEP_PATTERN = r"(?:\s|,|" + _lex.BLOCK_COMMENT + ")*"
_MD_ITEM = re.compile(
    _MD_SEP_PATTERN + "(" + _lex.NAME + ")=(?:" + _BODY + r"|(-?\d+)(?=[\s,}])|(\{[^{}\"]*\}))",
    re.S,
)
_match_md_sep = _lex.infallible_match(re.compile(_MD_SEP_PATTERN, re.S))


def metadata_at(text: str, pos: int) -> tuple[Metadata, int]:
    """Parse ``{key=value ...}`` starting at ``text[pos]``; return it and the end index."""
    m = _MD_FAST.match(text, pos)
    if m is not None:
        return metadata_from_match(m), m.end()
    if not text.startswith("{", pos):
        raise DecodeError("expected '{' to start metadata", pos)
    return _general_metadata(text, pos + 1)


def _general_metadata(text: str, pos: int) -> tuple[Metadata, int]:
    fields: dict[str, Any] = {}
    match = _MD_ITEM.match
    while True:
        m = match(text, pos)
        if m is not None:
            key, string, integer, braces = m.groups()
            pos = m.end()
            if string is not None:
                value: Any = c_unescape(string, m.start(2)) if "\\" in string else string
            elif integer is not None:
                value = int(integer)
            else:
                value = decode_int_list(braces, None)
            key_at = m.start(1)
        else:
            pos = _match_md_sep(text, pos).end()
            if text.startswith("}", pos):
                return Metadata(**fields), pos + 1
            c = ValueCursor(text, pos)
            key_at = c.skip()
            key = c.ident()
            c.expect("=")
            value_at = c.skip()
            value = c.balanced()
            pos = c.pos
            if key in _MD_STR_KEYS or key in _MD_INT_KEYS or key == "profile_type":
                raise DecodeError(f"bad value for metadata {key}", value_at)
        _check_field(fields, key, value, key_at)


def _check_field(fields: dict[str, Any], key: str, value: Any, key_at: int) -> None:
    """Store one item after checking its type; unknown keys (a newer XLA) are dropped."""
    if key in _MD_INT_KEYS:
        if not isinstance(value, int):
            raise DecodeError(f"metadata {key} needs an integer", key_at)
        fields[key] = value
    elif key in _MD_STR_KEYS:
        if not isinstance(value, str):
            raise DecodeError(f"metadata {key} needs a string", key_at)
        fields[key] = value
    elif key == "profile_type":
        if not isinstance(value, tuple):
            raise DecodeError("metadata profile_type needs {int,...}", key_at)
        fields[key] = value


def decode_metadata(raw: str, opcode: str | None) -> Metadata:
    md, end = metadata_at(raw, 0)
    if _lex.skip_ws(raw, end) != len(raw):
        raise DecodeError("unexpected text after metadata", end)
    return md


# --- printing -------------------------------------------------------------------------------
_PLAIN_TEXT = re.compile(r"[ !#-&(-\[\]-~]*")  # printable ASCII except " ' and backslash


def _escape(text: str) -> str:
    return text if _PLAIN_TEXT.fullmatch(text) else c_escape(text)


# The fields of ``metadata={...}`` in the order XLA prints them, and how each is written.
# scheduling_name is the one string XLA prints unescaped.
_PRINTED_FIELDS: tuple[tuple[str, Callable[[Any], str]], ...] = (
    ("op_type", lambda v: f'"{_escape(v)}"'),
    ("op_name", lambda v: f'"{_escape(v)}"'),
    ("source_file", lambda v: f'"{_escape(v)}"'),
    ("source_line", str),
    ("source_end_line", str),
    ("source_column", str),
    ("source_end_column", str),
    ("profile_type", lambda v: "{" + ints(v) + "}"),
    ("deduplicated_name", lambda v: f'"{_escape(v)}"'),
    ("scheduling_name", lambda v: f'"{v}"'),
    ("stack_frame_id", str),
)


def format_metadata(md: Metadata) -> str:
    """Print :class:`~hloscope.hlo.model.Metadata` as XLA does (``{op_type="..." ...}``)."""
    parts = [
        f"{name}={write(getattr(md, name))}" for name, write in _PRINTED_FIELDS if getattr(md, name)
    ]
    return "{" + " ".join(parts) + "}"

"""The lazy :class:`Attributes` mapping, and how it reads one attribute without the others.

Reading one attribute is the common case (``inst.metadata``, ``attrs.get("window")``), so
:class:`Attributes` does not split the whole text for it when it can avoid it. Nearly every
attribute text is in the *simple form* that :mod:`._split`'s fast path reads: ``name=value``
items joined by ``", "``, each value a string, one flat ``{...}`` group or a bare token. For
that form one regular expression per name (compiled once, run in C) walks the items, captures
the value of the wanted one and checks the rest of the text is well formed. Anything else
(nesting, comments, JSON, ``calls=%a, %b``...) falls back to the full split, so the value is
always the one the full split gives.

The one check the fast read leaves out is for *other* names given twice (``index=1, index=2,
metadata={}``): it finds the wanted name once and only that name is checked for repeats.
Iteration, ``len()`` and the full split still reject such text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol

from .. import _lex
from ..errors import DecodeError, HloParseError
from ..metadata import EMPTY_METADATA, Metadata
from ._split import SIMPLE_SEPARATOR, SIMPLE_VALUE, split_attributes
from ._table import KNOWN_ATTRIBUTE_NAMES, decode_attribute
from .metadata import FAST_METADATA, metadata_from_match


class HeaderSource(Protocol):
    """The text a module was read from (:class:`~hloscope.hlo.model.SourceText`), as far as an
    error in the module's header needs it."""

    def line_text(self, line: int) -> str: ...

    def error(self, message: str, line: int, column: int = 1) -> HloParseError: ...


class ModuleHeader(Protocol):
    """What :meth:`Attributes.for_module` reads of a :class:`~hloscope.hlo.model.Module`,
    named here so that attributes, below the model, need not import it."""

    @property
    def name(self) -> str: ...

    @property
    def header_attr_text(self) -> str: ...

    @property
    def source(self) -> HeaderSource | None: ...


__all__ = ["Attributes", "ErrorFactory", "read_metadata"]

# Values are atomic and repeats possessive: an item has one reading, so the engine never
# backtracks into one (which costs more than the match itself on long metadata).
_VALUE = "(?>" + SIMPLE_VALUE + ")"
_ITEM = _lex.NAME + "=" + _VALUE
# The whole text in the simple form; each item is matched once.
_ALL_SIMPLE = re.compile(_ITEM + "(?:" + SIMPLE_SEPARATOR + _ITEM + r")*+\Z", re.S)
_FINDERS: dict[str, re.Pattern] = {}


def _finder(name: str, value: str = _VALUE) -> re.Pattern:
    """The regex that reads ``name``'s value from a simple-form text (group 1), or fails.

    It fails, sending the caller to the full split, when ``name`` is absent, given twice, has a
    value of another form, or when any item of the text is not in the simple form.
    """
    key = name if value is _VALUE else name + " " + value
    finder = _FINDERS.get(key)
    if finder is None:
        other = "(?!" + re.escape(name) + "=)" + _ITEM  # an item with another name
        finder = _FINDERS[key] = re.compile(
            "(?:"
            + other
            + SIMPLE_SEPARATOR
            + ")*+"
            + re.escape(name)
            + "=("
            + value
            + ")"
            + "(?:"
            + SIMPLE_SEPARATOR
            + other
            + r")*+\Z",
            re.S,
        )
    return finder


def read_metadata(text: str) -> Metadata | None:
    """The ``metadata`` of an attribute text read in one pass, for :attr:`Instruction.metadata`.

    No :class:`Attributes` object, no decoder dispatch: a ``str.find``, one regex match in C
    and one :class:`Metadata`. The block must stand at the top level (no quote and balanced
    braces before it, so it is not inside a string or a sharding's own ``metadata``), once,
    in the form XLA prints. Returns ``None`` whenever the answer needs the general path; the
    caller then asks :class:`Attributes`, which also raises the errors. Other attributes are
    not checked here: a malformed one is reported by whoever reads it.
    """
    pos = text.find("metadata={")
    if pos < 0:
        return EMPTY_METADATA if "metadata=" not in text else None
    if pos and text[pos - 1] not in _SEPARATORS:
        return None
    # Counting in place: no copy of the text before the block.
    if text.count('"', 0, pos) or text.count("{", 0, pos) != text.count("}", 0, pos):
        return None
    if text.find("/*", 0, pos) >= 0:
        return None
    m = _MD_FAST.match(text, pos + len("metadata="))
    if m is None:
        return None
    end = m.end()
    if end < len(text) and text[end] not in _AFTER or text.find("metadata=", end) >= 0:
        return None
    try:
        return metadata_from_match(m)
    except DecodeError:
        return None


# What may stand before ``metadata=`` and right after its closing brace.
_SEPARATORS = frozenset(" ,\t\n\r")
_AFTER = frozenset(" ,\t\n\r")
_MD_FAST = re.compile(FAST_METADATA, re.S)


ErrorFactory = Callable[[str, int], Exception]


def _plain_error(text: str) -> ErrorFactory:
    def error(message: str, offset: int) -> Exception:
        return HloParseError(message, line=1, column=offset + 1, source_line=text)

    return error


class Attributes(Mapping[str, Any]):
    """The attributes of one instruction (or module header), decoded on first access.

    ``text`` is the attribute text (``kind=kLoop, calls=%f, ...``); ``opcode`` picks
    opcode-specific grammars; ``error(message, offset)`` builds the exception to raise for
    bad text, given an offset into ``text`` (the model passes one that knows the file, line
    and column). Iteration follows file order. ``raw(name)`` gives the value as written.
    """

    __slots__ = ("_text", "_opcode", "_error", "_entries", "_values")

    def __init__(
        self, text: str, opcode: str | None = None, error: ErrorFactory | None = None
    ) -> None:
        self._text = text
        self._opcode = opcode
        self._error = error if error is not None else _plain_error(text)
        self._entries: dict[str, tuple[str, int]] | None = None
        self._values: dict[str, Any] = {}

    @classmethod
    def for_module(cls, module: ModuleHeader) -> Attributes:
        """The header attributes of ``module`` (``is_scheduled``, ``entry_computation_layout``)."""
        text = module.header_attr_text or ""
        source = module.source
        header_line = getattr(module, "header_line", 1)

        def error(message: str, offset: int) -> Exception:
            if source is None:
                return HloParseError(f"module {module.name}: {message}")
            line = header_line + text.count("\n", 0, offset)
            line_text = source.line_text(line)
            last_nl = text.rfind("\n", 0, offset)
            if last_nl >= 0:  # a multi-line header (origin_recovery_table)
                column = offset - last_nl
            else:
                start = line_text.find(text.split("\n", 1)[0]) if text else -1
                column = (start if start >= 0 else 0) + offset + 1
            return source.error(message, line, column)

        return cls(text, None, error)

    # --- splitting ----------------------------------------------------------------------
    def _split(self) -> dict[str, tuple[str, int]]:
        entries = self._entries
        if entries is None:
            try:
                triples = split_attributes(self._text)
            except DecodeError as e:
                raise self._error(e.message, e.offset) from None
            entries = {}
            for name, raw, offset in triples:
                if name in entries:
                    raise self._error(f"duplicate attribute {name!r}", offset - len(name) - 1)
                entries[name] = (raw, offset)
            self._entries = entries
        return entries

    def _entry(self, name: str) -> tuple[str, int] | None:
        """``(raw value, offset)`` of ``name``, or ``None`` when absent; splits only if needed."""
        entries = self._entries
        if entries is not None:
            return entries.get(name)
        text = self._text
        if not text:
            return None
        if name + "=" in text:
            m = _finder(name).match(text)
            if m is not None:
                return m.group(1), m.start(1)
        elif _ALL_SIMPLE.match(text) is not None:
            return None  # well formed, and the name is nowhere in it
        return self._split().get(name)

    def _decode(self, name: str, raw: str, offset: int) -> Any:
        try:
            value = decode_attribute(name, raw, self._opcode)
        except DecodeError as e:
            raise self._error(f"bad {name}: {e.message}", offset + e.offset) from None
        self._values[name] = value
        return value

    # --- Mapping ------------------------------------------------------------------------
    def __getitem__(self, name: str) -> Any:
        values = self._values
        if name in values:
            return values[name]
        entry = self._entry(name)
        if entry is None:
            raise KeyError(name)
        return self._decode(name, *entry)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name in self._values or self._entry(name) is not None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._split())

    def __len__(self) -> int:
        return len(self._split())

    def get(self, name: str, default: Any = None) -> Any:
        values = self._values
        if name in values:
            return values[name]
        entry = self._entry(name)
        if entry is None:
            return default
        return self._decode(name, *entry)

    # --- raw access ---------------------------------------------------------------------
    @property
    def text(self) -> str:
        """The whole attribute text as given."""
        return self._text

    def raw(self, name: str) -> str:
        """The value of ``name`` exactly as written (``KeyError`` if absent)."""
        return self._required(name)[0]

    def offset(self, name: str) -> int:
        """Where the value of ``name`` starts in :attr:`text`."""
        return self._required(name)[1]

    def _required(self, name: str) -> tuple[str, int]:
        entry = self._entry(name)
        if entry is None:
            raise KeyError(name)
        return entry

    def unknown(self) -> list[str]:
        """Names present here that hloscope does not decode (kept as raw text)."""
        return [name for name in self._split() if name not in KNOWN_ATTRIBUTE_NAMES]

    def __repr__(self) -> str:
        try:
            inner = ", ".join(f"{k}={raw}" for k, (raw, _) in self._split().items())
        except Exception:  # repr must never raise
            inner = self._text
        if len(inner) > 200:
            inner = inner[:197] + "..."
        return f"<Attributes {inner}>"

"""Instruction and module attributes: splitting ``, name=value`` text and decoding each value.

An HLO instruction line ends with attributes::

    %f = f32[8]{0} fusion(%a), kind=kLoop, calls=%fused, metadata={op_name="a" source_line=3}

Most consumers only look at a few of them, so decoding is lazy. :func:`split_attributes` cuts
the text at *top-level* commas (commas inside ``()``, ``[]``, ``{}``, strings and comments do
not count) and keeps each value as raw text. :class:`Attributes` is a read-only mapping that
decodes a value the first time it is read, with the grammar for that attribute name (the
value grammars of XLA's ``hlo_parser.cc``), and caches it.

Decoded values are plain Python values (``int``, ``str``, ``tuple[int, ...]``...) or the small
frozen dataclasses defined here (:class:`Window`, :class:`Sharding`, :class:`ReplicaGroups`...).
Each dataclass prints back XLA's text with ``str()``, so ``str(attrs["window"])`` reads like the
dump. Attribute names this module does not know decode to their raw text and emit an
:class:`UnknownAttributeWarning` once per name: newer XLA versions add attributes all the time,
and a tool that reads dumps must not fail on them.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import DecodeError, HloParseError
from .escapes import c_escape, c_unescape, quoted_string_at
from .model import Metadata
from .shape import Shape, parse_shape, parse_shape_prefix

if TYPE_CHECKING:  # pragma: no cover
    from .model import Module

__all__ = [
    "Attributes",
    "UnknownAttributeWarning",
    "KNOWN_ATTRIBUTE_NAMES",
    "split_attributes",
    "decode_attribute",
    "format_metadata",
    "InlineComputation",
    "WindowDimension",
    "Window",
    "ConvDimLabels",
    "PaddingDimension",
    "PaddingConfig",
    "SliceRange",
    "IotaTileAssignment",
    "Sharding",
    "ReplicaGroups",
    "Domain",
    "ResultAccuracy",
    "OperandAlias",
    "ParameterAlias",
    "BufferDonor",
    "ComputationLayout",
    "ShapedLiteral",
]


class UnknownAttributeWarning(UserWarning):
    """An attribute name hloscope does not know (probably from a newer XLA); kept as raw text."""


# ==========================================================================================
# Splitting
# ==========================================================================================

# The tokens that matter for finding top-level commas. Everything else is skipped by the regex
# engine in C: a line with a 2 kB backend_config costs a handful of Python steps, not 2000.
# Whole strings and comments come first so that brackets and commas inside them are jumped
# over; a lone quote or '/*' can only match when the string or comment is unterminated.
_SPLIT_TOKEN = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"'
    r"|'[^'\\]*(?:\\.[^'\\]*)*'"
    r"|/\*.*?\*/"
    r"|//[^\n]*"
    r"|[()\[\]{},\"']"
    r"|/\*",
    re.S,
)
# Inside a LexJsonDict region only braces and double-quoted strings count (§1).
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}"]', re.S)
_ATTR_NAME = re.compile(r"(?:\s+|/\*.*?\*/)*([A-Za-z_][A-Za-z0-9_.\-]*)=", re.S)
_CLOSER_OF = {")": "(", "]": "[", "}": "{"}
_SIMPLE_ATTR = re.compile(
    r"([A-Za-z_][A-Za-z0-9_.\-]*)="
    r'("[^"\\]*(?:\\.[^"\\]*)*"'  # a string
    r'|\{[^{}"\\/()\[\]\']*(?:"[^"\\]*(?:\\.[^"\\]*)*"[^{}"\\/()\[\]\']*)*\}'  # a flat {...}
    r"|[^\s,{}()\[\]\"'/]+)"  # a bare token
    r"(?:, (?=\S)|\Z)",
    re.S,
)

# Brace values that XLA lexes with LexJsonDict: raw text, not tokens.
_JSON_VALUED = frozenset({"backend_config"})
_JSON_VALUED_ENTRIES = frozenset({"frontend_attributes"})


def _json_dict_end(text: str, pos: int) -> int:
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
        if m is None:
            break
        out.append((m.group(1), m.group(2), m.start(2)))
        pos = m.end()
        if pos == end:
            return out
    return _split_general(text)


def _split_general(text: str) -> list[tuple[str, str, int]]:
    cuts: list[int] = []  # offsets of top-level commas
    stack: list[tuple[str, int]] = []
    search = _SPLIT_TOKEN.search
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
                pos = _json_dict_end(text, start)
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


# ==========================================================================================
# A small cursor for the value grammars
# ==========================================================================================

_WS = re.compile(r"(?:\s+|/\*.*?\*/)*", re.S)
_INT = re.compile(r"-?\d+")
_NUMBER = re.compile(r"-?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|nan(?:\(0x[0-9a-fA-F]+\))?)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_NAME = re.compile(r"%?([A-Za-z_][A-Za-z0-9_.\-]*)")
_BARE_VALUE = re.compile(r"[^\s,{}()\[\]]+")


class _Cursor:
    """Reads one value's text left to right; errors carry the offset into that text."""

    __slots__ = ("text", "pos")

    def __init__(self, text: str, pos: int = 0) -> None:
        self.text = text
        self.pos = pos

    def skip(self) -> int:
        self.pos = _WS.match(self.text, self.pos).end()
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
        return DecodeError(f"{message}, found {self.text[pos:pos + 12]!r}", pos)

    def _match(self, regex: re.Pattern, what: str) -> re.Match:
        m = regex.match(self.text, self.skip())
        if m is None:
            raise self.error(f"expected {what}")
        self.pos = m.end()
        return m

    def int(self) -> int:
        return int(self._match(_INT, "an integer").group())

    def number(self) -> float | int:
        text = self._match(_NUMBER, "a number").group()
        if _INT.fullmatch(text):
            return int(text)
        return _float(text)

    def ident(self) -> str:
        return self._match(_IDENT, "an identifier").group()

    def name(self) -> str:
        """A computation or instruction name, with or without ``%``."""
        return self._match(_NAME, "a name").group(1)

    def string(self) -> str:
        value, self.pos = quoted_string_at(self.text, self.skip())
        return value

    def int_list(self, open_: str = "{", close: str = "}") -> tuple[int, ...]:
        self.expect(open_)
        values: list[int] = []
        if self.accept(close):
            return ()
        while True:
            values.append(self.int())
            if self.accept(","):
                continue
            self.expect(close)
            return tuple(values)

    def balanced(self) -> str:
        """The raw text of one bracketed group, string, or bare token."""
        start = self.skip()
        self.pos = _value_end(self.text, start)
        return self.text[start : self.pos]

    def done(self) -> None:
        if self.skip() != len(self.text):
            raise self.error("unexpected text")


def _float(text: str) -> float:
    if "nan" in text:
        return -math.nan if text.startswith("-") else math.nan
    return float(text)


def _value_end(text: str, pos: int) -> int:
    """End of the bracketed group / string at ``pos``, or of a bare token (stops at space ,})."""
    if pos >= len(text):
        raise DecodeError("expected a value, found end of text", pos)
    ch = text[pos]
    if ch == '"':
        return quoted_string_at(text, pos)[1]
    if ch in "{([":
        depth = 0
        search = _SPLIT_TOKEN.search
        at = pos
        while True:
            m = search(text, at)
            if m is None:
                raise DecodeError(f"unclosed {ch!r}", pos)
            tok = m.group()
            c = tok[0]
            if c in "{([":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth == 0:
                    return m.end()
            elif len(tok) == 1 and c in "\"'":
                raise DecodeError("unterminated string", m.start())
            at = m.end()
    m = _BARE_VALUE.match(text, pos)
    if m is None:
        raise DecodeError(f"expected a value, found {text[pos:pos + 12]!r}", pos)
    return m.end()


def _parse_or_raise(parse: Callable[[_Cursor], Any], raw: str) -> Any:
    c = _Cursor(raw)
    value = parse(c)
    c.done()
    return value


# ==========================================================================================
# Value types
# ==========================================================================================


def _ints(values) -> str:
    return ",".join(map(str, values))


@dataclass(frozen=True, slots=True)
class InlineComputation:
    """A computation written inline as ``{ instr... }`` instead of by name (Canonical printing).

    The parser, not this module, turns the body into a :class:`~hloscope.hlo.model.Computation`.
    """

    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class WindowDimension:
    """One dimension of a ``window={...}`` (XLA's ``WindowDimension`` proto).

    ``base_dilation`` is written ``lhs_dilate`` and ``window_dilation`` is ``rhs_dilate``.
    """

    size: int
    stride: int = 1
    padding_low: int = 0
    padding_high: int = 0
    window_dilation: int = 1
    base_dilation: int = 1
    window_reversal: bool = False


@dataclass(frozen=True, slots=True)
class Window:
    """A convolution / reduce-window window: ``{size=3x3 stride=2x2 pad=0_1x0_1}``.

    Fields left out of the text take their defaults (stride 1, no padding, no dilation).
    """

    dimensions: tuple[WindowDimension, ...] = ()

    @property
    def size(self) -> tuple[int, ...]:
        return tuple(d.size for d in self.dimensions)

    @property
    def stride(self) -> tuple[int, ...]:
        return tuple(d.stride for d in self.dimensions)

    @property
    def padding(self) -> tuple[tuple[int, int], ...]:
        return tuple((d.padding_low, d.padding_high) for d in self.dimensions)

    @property
    def lhs_dilate(self) -> tuple[int, ...]:
        return tuple(d.base_dilation for d in self.dimensions)

    @property
    def rhs_dilate(self) -> tuple[int, ...]:
        return tuple(d.window_dilation for d in self.dimensions)

    @property
    def rhs_reversal(self) -> tuple[bool, ...]:
        return tuple(d.window_reversal for d in self.dimensions)

    def __len__(self) -> int:
        return len(self.dimensions)

    def __str__(self) -> str:
        # Same rule as window_util::ToString: a field is printed when any dimension differs
        # from its default.
        dims = self.dimensions
        if not dims:
            return "{}"
        parts = ["size=" + "x".join(str(d.size) for d in dims)]
        if any(d.stride != 1 for d in dims):
            parts.append("stride=" + "x".join(str(d.stride) for d in dims))
        if any(d.padding_low or d.padding_high for d in dims):
            parts.append("pad=" + "x".join(f"{d.padding_low}_{d.padding_high}" for d in dims))
        if any(d.base_dilation != 1 for d in dims):
            parts.append("lhs_dilate=" + "x".join(str(d.base_dilation) for d in dims))
        if any(d.window_dilation != 1 for d in dims):
            parts.append("rhs_dilate=" + "x".join(str(d.window_dilation) for d in dims))
        if any(d.window_reversal for d in dims):
            parts.append("rhs_reversal=" + "x".join(str(int(d.window_reversal)) for d in dims))
        return "{" + " ".join(parts) + "}"


@dataclass(frozen=True, slots=True)
class ConvDimLabels:
    """``dim_labels=b01f_01io->b01f``: which dimension of each convolution operand is what.

    Each label string has one character per dimension, in dimension order: ``b`` batch,
    ``f`` feature, ``i``/``o`` kernel input/output feature, digits the spatial dimensions in
    order, ``?`` an unused dimension. ``input_spatial_dimensions[k]`` is the position of the
    digit ``k`` in ``input``.
    """

    input: str
    kernel: str
    output: str

    @property
    def num_spatial_dimensions(self) -> int:
        return sum(ch.isdigit() for ch in self.input)

    def _spatial(self, labels: str) -> tuple[int, ...]:
        return tuple(labels.index(str(k)) for k in range(self.num_spatial_dimensions))

    @property
    def input_batch_dimension(self) -> int:
        return self.input.index("b")

    @property
    def input_feature_dimension(self) -> int:
        return self.input.index("f")

    @property
    def input_spatial_dimensions(self) -> tuple[int, ...]:
        return self._spatial(self.input)

    @property
    def kernel_input_feature_dimension(self) -> int:
        return self.kernel.index("i")

    @property
    def kernel_output_feature_dimension(self) -> int:
        return self.kernel.index("o")

    @property
    def kernel_spatial_dimensions(self) -> tuple[int, ...]:
        return self._spatial(self.kernel)

    @property
    def output_batch_dimension(self) -> int:
        return self.output.index("b")

    @property
    def output_feature_dimension(self) -> int:
        return self.output.index("f")

    @property
    def output_spatial_dimensions(self) -> tuple[int, ...]:
        return self._spatial(self.output)

    def __str__(self) -> str:
        return f"{self.input}_{self.kernel}->{self.output}"


@dataclass(frozen=True, slots=True)
class PaddingDimension:
    """Padding of one dimension of ``pad``: ``lo`` and ``hi`` edges (negative crops) and interior."""

    lo: int
    hi: int
    interior: int = 0


@dataclass(frozen=True, slots=True)
class PaddingConfig:
    """``padding=0_0x1_1`` (or ``lo_hi_interior`` per dimension): the config of a ``pad``."""

    dimensions: tuple[PaddingDimension, ...] = ()

    def __len__(self) -> int:
        return len(self.dimensions)

    def __str__(self) -> str:
        if any(d.interior for d in self.dimensions):
            return "x".join(f"{d.lo}_{d.hi}_{d.interior}" for d in self.dimensions)
        return "x".join(f"{d.lo}_{d.hi}" for d in self.dimensions)


@dataclass(frozen=True, slots=True)
class SliceRange:
    """One ``[start:limit:stride]`` of a ``slice={...}``."""

    start: int
    limit: int
    stride: int = 1

    def __str__(self) -> str:
        if self.stride != 1:
            return f"[{self.start}:{self.limit}:{self.stride}]"
        return f"[{self.start}:{self.limit}]"


@dataclass(frozen=True, slots=True)
class IotaTileAssignment:
    """A device array written compactly as ``[dims]<=[reshape_dims]T(perm)``.

    Meaning: ``arange(prod(reshape_dims)).reshape(reshape_dims).transpose(perm).reshape(dims)``.
    """

    dims: tuple[int, ...]
    reshape_dims: tuple[int, ...]
    transpose_perm: tuple[int, ...] = ()

    def devices(self) -> tuple[int, ...]:
        """The device ids in row-major order of ``dims``."""
        flat = _transposed_offsets(self.reshape_dims, self.transpose_perm)
        if _prod(self.dims) != len(flat):
            raise ValueError(f"iota {self}: {self.dims} does not hold {len(flat)} devices")
        return tuple(flat)

    def __str__(self) -> str:
        text = f"[{_ints(self.dims)}]<=[{_ints(self.reshape_dims)}]"
        if self.transpose_perm:
            text += f"T({_ints(self.transpose_perm)})"
        return text


def _prod(values) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def _transposed_offsets(dims, perm) -> list[int]:
    """Flat row-major offsets into an array of ``dims``, visited in the order of its transpose."""
    strides = [1] * len(dims)
    for i in range(len(dims) - 2, -1, -1):
        strides[i] = strides[i + 1] * dims[i + 1]
    order = perm if perm else range(len(dims))
    out = [0]
    for axis in order:
        size, stride = dims[axis], strides[axis]
        out = [base + i * stride for base in out for i in range(size)]
    return out


@dataclass(frozen=True, slots=True)
class Sharding:
    """An ``HloSharding``: how a value is split over devices.

    ``kind`` is one of ``replicated``, ``maximal`` (all on ``device``), ``manual``,
    ``unknown``, ``unreduced``, ``tiled`` (``devices=[tile_dims]...``), ``tuple`` (one sharding
    per element in ``elements``) or ``named`` (the newer mesh form, kept as ``raw`` text).
    For ``tiled``, ``devices`` is the tile assignment flattened in row-major order, with
    ``iota`` set when the text used the compact iota form; :meth:`tile_assignment` gives
    it as an array of shape ``tile_dims``. With ``last_tile_dim_replicate`` the last tile
    dimension lists replicas; ``last_tile_dims`` names the kind of each trailing subgroup
    dimension (``manual``, ``replicated``...).
    """

    kind: str
    device: int | None = None
    tile_dims: tuple[int, ...] = ()
    devices: tuple[int, ...] = ()
    iota: IotaTileAssignment | None = None
    last_tile_dim_replicate: bool = False
    last_tile_dims: tuple[str, ...] = ()
    shard_as: int | None = None
    shard_like: int | None = None
    metadata: tuple[Metadata, ...] = ()
    elements: tuple["Sharding", ...] = ()
    raw: str | None = None

    @property
    def is_tuple(self) -> bool:
        return self.kind == "tuple"

    @property
    def is_replicated(self) -> bool:
        if self.kind == "tuple":
            return all(e.is_replicated for e in self.elements)
        return self.kind == "replicated"

    @property
    def is_tiled(self) -> bool:
        return self.kind == "tiled"

    @property
    def num_tiles(self) -> int:
        """Number of distinct data tiles (replication dimensions not counted)."""
        if self.kind != "tiled":
            return 1
        dims = self.tile_dims
        if self.last_tile_dim_replicate:
            dims = dims[:-1]
        elif self.last_tile_dims:
            dims = dims[: len(dims) - len(self.last_tile_dims)]
        return _prod(dims)

    def tile_assignment(self):
        """The device ids as a numpy array of shape ``tile_dims`` (tiled shardings only)."""
        import numpy as np

        return np.array(self.devices, dtype=np.int64).reshape(self.tile_dims)

    def __str__(self) -> str:
        if self.kind == "tuple":
            return "{" + _with_index_comments([str(e) for e in self.elements]) + "}"
        if self.kind == "named" and self.raw is not None:
            return self.raw
        parts = []
        if self.kind == "maximal":
            parts.append(f"maximal device={self.device}")
        elif self.kind == "tiled":
            if self.iota is not None:
                parts.append(f"devices={self.iota}")
            else:
                parts.append(f"devices=[{_ints(self.tile_dims)}]{_ints(self.devices)}")
        else:
            parts.append(self.kind)
        if self.last_tile_dim_replicate:
            parts.append("last_tile_dim_replicate")
        if self.last_tile_dims:
            parts.append("last_tile_dims={" + ", ".join(self.last_tile_dims) + "}")
        if self.shard_as is not None:
            parts.append(f"shard_as {self.shard_as}")
        if self.shard_like is not None:
            parts.append(f"shard_like {self.shard_like}")
        if len(self.metadata) == 1:
            parts.append("metadata=" + format_metadata(self.metadata[0]))
        elif self.metadata:
            parts.append("metadata={" + ", ".join(map(format_metadata, self.metadata)) + "}")
        return "{" + " ".join(parts) + "}"


@dataclass(frozen=True, slots=True)
class ReplicaGroups:
    """``replica_groups=``: which devices take part together in a collective.

    ``groups`` is always the explicit list of device-id groups: the iota form
    ``[2,4]<=[8]`` (kept in ``iota``) and the mesh-axes form
    ``mesh['x'=4,'y'=2] {'x'}`` (kept as text in ``mesh``) are expanded.
    ``groups`` is ``None`` only for a mesh form this version cannot expand.
    """

    groups: tuple[tuple[int, ...], ...] | None
    iota: IotaTileAssignment | None = None
    mesh: str | None = None

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return iter(self.groups or ())

    def __len__(self) -> int:
        return len(self.groups or ())

    def __getitem__(self, index: int) -> tuple[int, ...]:
        return (self.groups or ())[index]

    @property
    def group_size(self) -> int | None:
        return len(self.groups[0]) if self.groups else None

    def __str__(self) -> str:
        if self.mesh is not None:
            return self.mesh
        if self.iota is not None:
            return str(self.iota)
        return "{" + ",".join("{" + _ints(g) + "}" for g in self.groups or ()) + "}"


@dataclass(frozen=True, slots=True)
class Domain:
    """``domain={kind="sharding", entry={...}, exit={...}}`` of a ``domain`` instruction."""

    kind: str
    entry: Sharding | str | None = None
    exit: Sharding | str | None = None

    def __str__(self) -> str:
        parts = [f'kind="{c_escape(self.kind)}"']
        if self.entry is not None:
            parts.append(f"entry={self.entry}")
        if self.exit is not None:
            parts.append(f"exit={self.exit}")
        return "{" + ", ".join(parts) + "}"


@dataclass(frozen=True, slots=True)
class ResultAccuracy:
    """``result_accuracy={mode=highest}`` or ``{tolerance={rtol=0.5, atol=1, ulps=2}}``."""

    mode: str | None = None
    rtol: float = 0.0
    atol: float = 0.0
    ulps: int = 0

    def __str__(self) -> str:
        if self.mode is not None:
            return f"{{mode={self.mode}}}"
        return f"{{tolerance={{rtol={self.rtol:g}, atol={self.atol:g}, ulps={self.ulps}}}}}"


class OperandAlias(NamedTuple):
    """One entry of ``output_to_operand_aliasing``: output index ``{i}`` shares operand ``n``'s buffer."""

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
        params = _with_index_comments([_shape_text(s) for s in self.parameters])
        return "{(" + params + ")->" + _shape_text(self.result) + "}"


def _with_index_comments(items: list[str]) -> str:
    """Join tuple elements as XLA does: ``/*index=N*/`` before every 5th one."""
    return ", ".join(
        (f"/*index={i}*/" if i and i % 5 == 0 else "") + item for i, item in enumerate(items)
    )


def _shape_text(shape: Shape) -> str:
    """A shape as XLA prints it in layouts, index comments in tuples included."""
    if shape.is_tuple:
        return "(" + _with_index_comments([_shape_text(s) for s in shape.tuple_shapes]) + ")"
    return str(shape)


class ShapedLiteral(NamedTuple):
    """A custom-call ``literal=``: its shape and value (a numpy array, or a tuple of them)."""

    shape: Shape
    value: Any


# ==========================================================================================
# Decoders, one per grammar. Each takes the raw value text and raises DecodeError with an
# offset into it.
# ==========================================================================================

_INT_LIST_RE = re.compile(r"\{\s*(-?\d+(?:\s*,\s*-?\d+)*)?\s*\}")
_BOOL_LIST_RE = re.compile(r"\{\s*((?:true|false)(?:\s*,\s*(?:true|false))*)?\s*\}")
_ENUM_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


def _decode_int(raw: str, opcode: str | None) -> int:
    if _INT.fullmatch(raw) is None:
        raise DecodeError(f"expected an integer, found {raw[:20]!r}", 0)
    return int(raw)


def _decode_float(raw: str, opcode: str | None) -> float:
    m = _NUMBER.fullmatch(raw)
    if m is None:
        raise DecodeError(f"expected a number, found {raw[:20]!r}", 0)
    return _float(raw)


def _decode_bool(raw: str, opcode: str | None) -> bool:
    if raw == "true":
        return True
    if raw == "false":
        return False
    raise DecodeError(f"expected true or false, found {raw[:20]!r}", 0)


def _decode_enum(raw: str, opcode: str | None) -> str:
    if _ENUM_RE.fullmatch(raw) is None:
        raise DecodeError(f"expected an identifier, found {raw[:20]!r}", 0)
    return raw


def _decode_string(raw: str, opcode: str | None) -> str:
    value, end = quoted_string_at(raw, 0)
    if end != len(raw):
        raise DecodeError("unexpected text after string", end)
    return value


def _decode_int_list(raw: str, opcode: str | None) -> tuple:
    m = _INT_LIST_RE.fullmatch(raw)
    if m is not None:
        body = m.group(1)
        return tuple(int(x) for x in body.split(",")) if body else ()

    # Nested lists: collective-permute's combined form `slice_sizes={{1,2},{3,4}}`.
    def nested(c: _Cursor) -> tuple:
        c.expect("{")
        if c.accept("}"):
            return ()
        items: list = []
        while True:
            items.append(nested(c) if c.at("{") else c.int())
            if c.accept(","):
                continue
            c.expect("}")
            return tuple(items)

    return _parse_or_raise(nested, raw)


def _decode_bool_list(raw: str, opcode: str | None) -> tuple[bool, ...]:
    m = _BOOL_LIST_RE.fullmatch(raw)
    if m is None:
        raise DecodeError(f"expected {{true,false,...}}, found {raw[:20]!r}", 0)
    body = m.group(1)
    return tuple(x.strip() == "true" for x in body.split(",")) if body else ()


def _decode_bool_or_list(raw: str, opcode: str | None) -> bool | tuple[bool, ...]:
    return _decode_bool_list(raw, opcode) if raw.startswith("{") else _decode_bool(raw, opcode)


def _decode_enum_list(raw: str, opcode: str | None) -> tuple[str, ...]:
    def parse(c: _Cursor) -> tuple[str, ...]:
        c.expect("{")
        if c.accept("}"):
            return ()
        out = []
        while True:
            out.append(c.ident())
            if c.accept(","):
                continue
            c.expect("}")
            return tuple(out)

    return _parse_or_raise(parse, raw)


def _is_inline_body(raw: str) -> bool:
    return raw.startswith("{") and "=" in raw


def _decode_computation(raw: str, opcode: str | None) -> str | list[str] | InlineComputation:
    """``to_apply=%add``: the name without ``%``. ``calls=%a, %b`` gives a list."""
    if _is_inline_body(raw):
        return InlineComputation(raw)
    if raw.startswith("{"):  # `calls={%a, %b}`
        return _decode_computation_list(raw, opcode)
    c = _Cursor(raw)
    names = [c.name()]
    while c.accept(","):
        names.append(c.name())
    c.done()
    return names[0] if len(names) == 1 else names


def _decode_computation_list(raw: str, opcode: str | None) -> list:
    """``{%a, %b}``; entries may also be inline bodies ``{ ... }``."""

    def parse(c: _Cursor) -> list:
        c.expect("{")
        out: list = []
        if c.accept("}"):
            return out
        while True:
            if c.at("{"):
                out.append(InlineComputation(c.balanced()))
            else:
                out.append(c.name())
            if c.accept(","):
                continue
            c.expect("}")
            return out

    return _parse_or_raise(parse, raw)


# --- metadata -----------------------------------------------------------------------------

_MD_INT_KEYS = frozenset(
    {"source_line", "source_end_line", "source_column", "source_end_column", "stack_frame_id"}
)
_MD_STR_KEYS = frozenset(
    {"op_type", "op_name", "source_file", "deduplicated_name", "scheduling_name"}
)
# key=value with the common value forms; anything else goes through the slow path.
_MD_ITEM = re.compile(
    r'(?:\s|,|/\*.*?\*/)*([A-Za-z_][A-Za-z0-9_.\-]*)=(?:"([^"\\]*(?:\\.[^"\\]*)*)"|(-?\d+)(?=[\s,}])|(\{[^{}"]*\}))',
    re.S,
)


_MD_SEP = re.compile(r"(?:\s|,|/\*.*?\*/)*", re.S)


def _metadata_at(text: str, pos: int) -> tuple[Metadata, int]:
    """Parse ``{key=value ...}`` starting at ``text[pos]``; return it and the end index.

    Metadata is on nearly every instruction, so the common ``key="..."``/``key=123`` items go
    through one regex match each; anything else takes the general path.
    """
    if not text.startswith("{", pos):
        raise DecodeError("expected '{' to start metadata", pos)
    pos += 1
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
                value = _decode_int_list(braces, None)
            key_at = m.start(1)
        else:
            pos = _MD_SEP.match(text, pos).end()
            if text.startswith("}", pos):
                return Metadata(**fields), pos + 1
            c = _Cursor(text, pos)
            key_at = c.skip()
            key = c.ident()
            c.expect("=")
            value_at = c.skip()
            value = c.balanced()
            pos = c.pos
            if key in _MD_STR_KEYS or key in _MD_INT_KEYS or key == "profile_type":
                raise DecodeError(f"bad value for metadata {key}", value_at)
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
        # Unknown keys (from a newer XLA) are tolerated and dropped.


def _decode_metadata(raw: str, opcode: str | None) -> Metadata:
    md, end = _metadata_at(raw, 0)
    if _WS.match(raw, end).end() != len(raw):
        raise DecodeError("unexpected text after metadata", end)
    return md


_PLAIN_TEXT = re.compile(r"[ !#-&(-\[\]-~]*")  # printable ASCII except " ' and backslash


def _escape(text: str) -> str:
    return text if _PLAIN_TEXT.fullmatch(text) else c_escape(text)


def format_metadata(md: Metadata) -> str:
    """Print :class:`~hloscope.hlo.model.Metadata` as XLA does: ``{op_type="..." op_name="..."}``."""
    parts = []
    if md.op_type:
        parts.append(f'op_type="{_escape(md.op_type)}"')
    if md.op_name:
        parts.append(f'op_name="{_escape(md.op_name)}"')
    if md.source_file:
        parts.append(f'source_file="{_escape(md.source_file)}"')
    if md.source_line:
        parts.append(f"source_line={md.source_line}")
    if md.source_end_line:
        parts.append(f"source_end_line={md.source_end_line}")
    if md.source_column:
        parts.append(f"source_column={md.source_column}")
    if md.source_end_column:
        parts.append(f"source_end_column={md.source_end_column}")
    if md.profile_type:
        parts.append("profile_type={" + _ints(md.profile_type) + "}")
    if md.deduplicated_name:
        parts.append(f'deduplicated_name="{_escape(md.deduplicated_name)}"')
    if md.scheduling_name:
        parts.append(f'scheduling_name="{md.scheduling_name}"')  # XLA prints it unescaped
    if md.stack_frame_id:
        parts.append(f"stack_frame_id={md.stack_frame_id}")
    return "{" + " ".join(parts) + "}"


# --- window, dim_labels, padding, slice ---------------------------------------------------

_WINDOW_ITEM = re.compile(r"(?:\s|,)*([a-z_]+)=(-?\d+(?:_-?\d+)*(?:x-?\d+(?:_-?\d+)*)*)(?=[\s,}])")
_WINDOW_FIELDS = ("size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal")


def _decode_window(raw: str, opcode: str | None) -> Window:
    if not raw.startswith("{"):
        raise DecodeError("expected '{' to start a window", 0)
    fields: dict[str, tuple[str, int]] = {}
    pos = 1
    while True:
        pos = _WS.match(raw, pos).end()
        if raw.startswith("}", pos):
            break
        m = _WINDOW_ITEM.match(raw, pos)
        if m is None:
            raise DecodeError(f"bad window field {raw[pos:pos + 16]!r}", pos)
        key = m.group(1)
        if key not in _WINDOW_FIELDS:
            raise DecodeError(f"unknown window field {key!r}", m.start(1))
        if key in fields:
            raise DecodeError(f"window field {key!r} given twice", m.start(1))
        fields[key] = (m.group(2), m.start(2))
        pos = m.end()
    if _WS.match(raw, pos + 1).end() != len(raw):
        raise DecodeError("unexpected text after window", pos + 1)
    if not fields:
        return Window(())
    if "size" not in fields:
        raise DecodeError("window needs size=", 0)
    columns: dict[str, list] = {}
    rank = None
    for key, (value, at) in fields.items():
        items = value.split("x")
        if rank is None:
            rank = len(items)
        elif len(items) != rank:
            raise DecodeError(f"window {key} has {len(items)} dimensions, expected {rank}", at)
        if key == "pad":
            pairs = []
            for item in items:
                lo_hi = item.split("_")
                if len(lo_hi) != 2:
                    raise DecodeError(f"bad window padding {item!r} (expected lo_hi)", at)
                pairs.append((int(lo_hi[0]), int(lo_hi[1])))
            columns[key] = pairs
        else:
            if "_" in value:
                raise DecodeError(f"bad window {key} {value!r}", at)
            columns[key] = [int(x) for x in items]
    n = rank or 0
    size = columns["size"]
    stride = columns.get("stride", [1] * n)
    pad = columns.get("pad", [(0, 0)] * n)
    lhs = columns.get("lhs_dilate", [1] * n)
    rhs = columns.get("rhs_dilate", [1] * n)
    rev = columns.get("rhs_reversal", [0] * n)
    return Window(
        tuple(
            WindowDimension(size[i], stride[i], pad[i][0], pad[i][1], rhs[i], lhs[i], bool(rev[i]))
            for i in range(n)
        )
    )


_DIM_LABELS_RE = re.compile(r"([0-9bf?]{2,})_([0-9io?]{2,})->([0-9bf?]{2,})")


def _decode_dim_labels(raw: str, opcode: str | None) -> ConvDimLabels:
    m = _DIM_LABELS_RE.fullmatch(raw)
    if m is None:
        raise DecodeError(f"expected dim labels like b01f_01io->b01f, found {raw[:24]!r}", 0)
    return ConvDimLabels(*m.groups())


_PAD_RE = re.compile(r"-?\d+_-?\d+(?:_-?\d+)?(?:x-?\d+_-?\d+(?:_-?\d+)?)*")


def _decode_padding(raw: str, opcode: str | None) -> PaddingConfig:
    if _PAD_RE.fullmatch(raw) is None:
        raise DecodeError(f"expected padding like 0_0x1_1, found {raw[:24]!r}", 0)
    dims = []
    for item in raw.split("x"):
        parts = [int(p) for p in item.split("_")]
        dims.append(PaddingDimension(*parts))
    return PaddingConfig(tuple(dims))


_SLICE_ITEM = re.compile(r"\[\s*(-?\d+)\s*:\s*(-?\d+)\s*(?::\s*(-?\d+)\s*)?\]")


def _decode_slice(raw: str, opcode: str | None) -> tuple[SliceRange, ...]:
    def parse(c: _Cursor) -> tuple[SliceRange, ...]:
        c.expect("{")
        if c.accept("}"):
            return ()
        out = []
        while True:
            m = _SLICE_ITEM.match(c.text, c.skip())
            if m is None:
                raise c.error("expected [start:limit] or [start:limit:stride]")
            start, limit, stride = m.groups()
            out.append(SliceRange(int(start), int(limit), int(stride) if stride else 1))
            c.pos = m.end()
            if c.accept(","):
                continue
            c.expect("}")
            return tuple(out)

    return _parse_or_raise(parse, raw)


# --- sharding -----------------------------------------------------------------------------


def _iota_at(c: _Cursor, dims: tuple[int, ...]) -> IotaTileAssignment:
    """After ``[dims]``: read ``<=[reshape]T(perm)``."""
    if any(d <= 0 for d in dims):
        raise c.error(f"iota dimensions must be positive, got {list(dims)}")
    c.expect("<=")
    reshape = c.int_list("[", "]")
    if any(d <= 0 for d in reshape):
        raise c.error(f"iota dimensions must be positive, got {list(reshape)}")
    perm: tuple[int, ...] = ()
    if c.accept("T"):
        perm = c.int_list("(", ")")
        if sorted(perm) != list(range(len(reshape))):
            raise c.error(f"T{perm} is not a permutation of {len(reshape)} dimensions")
    iota = IotaTileAssignment(dims, reshape, perm)
    if _prod(dims) != _prod(reshape):
        raise c.error(f"iota {iota} has {_prod(reshape)} devices but {list(dims)} needs {_prod(dims)}")
    return iota


def _sharding_at(c: _Cursor) -> Sharding:
    start = c.skip()
    c.expect("{")
    nxt = c.peek()
    if nxt in ("{", "}"):
        elements: list[Sharding] = []
        if c.accept("}"):
            return Sharding("tuple")
        while True:
            elements.append(_sharding_at(c))
            if c.accept(","):
                continue
            c.expect("}")
            return Sharding("tuple", elements=tuple(elements))
    if c.at("mesh") or c.at("maximal_mesh") or nxt in ("[", "@"):
        # The newer named (mesh) form; keep it as text.
        c.pos = start
        return Sharding("named", raw=c.balanced())
    kind: str | None = None
    fields: dict[str, Any] = {}
    while not c.accept("}"):
        word_at = c.skip()
        word = c.ident()
        if word in ("replicated", "manual", "unknown", "unreduced"):
            kind = word
        elif word in ("maximal", "maximul"):
            kind = "maximal"
            c.expect("device")
            c.expect("=")
            fields["device"] = c.int()
        elif word == "devices":
            kind = "tiled"
            c.expect("=")
            dims = c.int_list("[", "]")
            if c.at("<="):
                iota = _iota_at(c, dims)
                fields["iota"] = iota
                fields["devices"] = iota.devices()
            else:
                devices = [c.int()]
                while c.accept(","):
                    devices.append(c.int())
                if len(devices) != _prod(dims):
                    raise DecodeError(
                        f"devices=[{_ints(dims)}] needs {_prod(dims)} device ids, found {len(devices)}",
                        word_at,
                    )
                fields["devices"] = tuple(devices)
            fields["tile_dims"] = dims
        elif word == "last_tile_dim_replicate":
            fields["last_tile_dim_replicate"] = True
        elif word == "last_tile_dims":
            c.expect("=")
            fields["last_tile_dims"] = _decode_enum_list(c.balanced(), None)
        elif word in ("shard_as", "shard_like"):
            fields[word] = c.int()
        elif word == "metadata":
            c.expect("=")
            fields["metadata"] = _sharding_metadata(c)
        else:
            raise DecodeError(f"unknown sharding keyword {word!r}", word_at)
    if kind is None:
        raise DecodeError("sharding has no type (replicated, maximal, devices=...)", start)
    return Sharding(kind, **fields)


def _sharding_metadata(c: _Cursor) -> tuple[Metadata, ...]:
    pos = c.skip()
    after = _WS.match(c.text, pos + 1).end()
    if c.text.startswith("{", pos) and c.text.startswith("{", after):
        c.expect("{")
        out = []
        while True:
            md, c.pos = _metadata_at(c.text, c.skip())
            out.append(md)
            if c.accept(","):
                continue
            c.expect("}")
            return tuple(out)
    if c.text.startswith("{", pos) and c.text.startswith("}", after):
        c.pos = after + 1
        return ()
    md, c.pos = _metadata_at(c.text, pos)
    return (md,)


def _decode_sharding(raw: str, opcode: str | None) -> Sharding:
    return _parse_or_raise(_sharding_at, raw)


# --- replica groups -----------------------------------------------------------------------


def _groups_list(c: _Cursor) -> tuple[tuple[int, ...], ...]:
    c.expect("{")
    if c.accept("}"):
        return ()
    groups = []
    while True:
        groups.append(c.int_list())
        if c.accept(","):
            continue
        c.expect("}")
        return tuple(groups)


def _decode_replica_groups(raw: str, opcode: str | None) -> ReplicaGroups:
    if raw.startswith("{"):
        return ReplicaGroups(_parse_or_raise(_groups_list, raw))
    if raw.startswith("["):

        def parse(c: _Cursor) -> ReplicaGroups:
            dims = c.int_list("[", "]")
            if len(dims) != 2:
                raise DecodeError("iota replica groups need [num_groups,group_size]", 0)
            iota = _iota_at(c, dims)
            flat = iota.devices()
            size = dims[1]
            groups = tuple(tuple(flat[i : i + size]) for i in range(0, len(flat), size))
            return ReplicaGroups(groups, iota=iota)

        return _parse_or_raise(parse, raw)
    if raw.startswith(("mesh", "maximal_mesh")):
        return ReplicaGroups(_mesh_groups(raw), mesh=raw)
    raise DecodeError("expected {{...}}, [n,m]<=[...] or mesh[...] replica groups", 0)


_AXIS_NAME = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"|([A-Za-z_][A-Za-z0-9_.\-]*)")


def _axis_name(c: _Cursor) -> str:
    m = _AXIS_NAME.match(c.text, c.skip())
    if m is None:
        raise c.error("expected a mesh axis name")
    c.pos = m.end()
    return next(g for g in m.groups() if g is not None)


def _mesh_groups(raw: str) -> tuple[tuple[int, ...], ...] | None:
    """Expand ``mesh['x'=4,'y'=2][, device_ids=(...)] {'x'}`` into explicit groups.

    Follows ``MeshAxesReplicaGroupList::flattened_replica_groups``: reshape the mesh's device
    array so every referenced (sub-)axis is its own dimension, move the grouped axes last (in
    the order listed) and cut the result into groups. Returns ``None`` for forms it does not
    know (e.g. ``maximal_mesh``), which the caller keeps as text.
    """
    c = _Cursor(raw)
    if not c.accept("mesh["):
        return None
    names: list[str] = []
    sizes: list[int] = []
    if not c.accept("]"):
        while True:
            names.append(_axis_name(c))
            c.expect("=")
            sizes.append(c.int())
            if c.accept(","):
                continue
            c.expect("]")
            break
    if any(size <= 0 for size in sizes):
        raise DecodeError("mesh axis sizes must be positive", 0)
    total = _prod(sizes)
    devices = list(range(total))
    if c.accept(","):
        c.expect("device_ids")
        c.expect("=")
        c.expect("(")
        if c.at("["):
            dims = c.int_list("[", "]")
            if c.at("<="):
                devices = list(_iota_at(c, dims).devices())
            else:
                perm = c.int_list("(", ")") if c.accept("T") else ()
                devices = _transposed_offsets(dims, perm)
        else:
            devices = [c.int()]
            while c.accept(","):
                devices.append(c.int())
        c.expect(")")
        if len(devices) != total:
            raise c.error(f"mesh has {total} devices but device_ids lists {len(devices)}")
    c.expect("{")
    axes: list[tuple[int, tuple[int, int] | None]] = []
    if not c.accept("}"):
        while True:
            name_at = c.skip()
            name = _axis_name(c)
            if name not in names:
                raise DecodeError(f"unknown mesh axis {name!r}", name_at)
            sub = None
            if c.accept(":"):
                c.expect("(")
                pre = c.int()
                c.expect(")")
                size = c.int()
                full = sizes[names.index(name)]
                if pre < 1 or size < 2 or full % (pre * size):
                    raise DecodeError(f"bad sub-axis {name}:({pre}){size} of a size-{full} axis", name_at)
                sub = (pre, size)
            axes.append((names.index(name), sub))
            if c.accept(","):
                continue
            c.expect("}")
            break
    c.done()
    return _group_mesh_axes(sizes, devices, axes)


def _group_mesh_axes(
    sizes: list[int], devices: list[int], axes: list[tuple[int, tuple[int, int] | None]]
) -> tuple[tuple[int, ...], ...]:
    by_dim: dict[int, list[tuple[int, int] | None]] = {}
    for dim, sub in axes:
        by_dim.setdefault(dim, []).append(sub)
    reshape_of: dict[int, tuple[list[int], list[int]]] = {}
    for dim, subs in by_dim.items():
        full = sizes[dim]
        if len(subs) == 1:
            sub = subs[0]
            if sub is None:
                reshape_of[dim] = ([full], [0])
            else:
                pre, size = sub
                reshape_of[dim] = ([pre, size, full // (pre * size)], [1])
            continue
        if any(s is None for s in subs):
            raise DecodeError("a full mesh axis cannot be combined with its sub-axes", 0)
        order = sorted(range(len(subs)), key=lambda i: subs[i][0])
        reshape: list[int] = []
        aggregate_sorted: list[int] = []
        prefix = 1
        for i in order:
            pre, size = subs[i]
            if pre % prefix:
                raise DecodeError("overlapping sub-axes in mesh replica groups", 0)
            if pre != prefix:
                reshape.append(pre // prefix)
                prefix *= pre // prefix
            reshape.append(size)
            aggregate_sorted.append(len(reshape) - 1)
            prefix *= size
        if prefix != full:
            reshape.append(full // prefix)
        aggregate = [0] * len(subs)
        for k, i in enumerate(order):
            aggregate[i] = aggregate_sorted[k]
        reshape_of[dim] = (reshape, aggregate)
    new_sizes: list[int] = []
    offsets: list[int] = []
    for dim, size in enumerate(sizes):
        offsets.append(len(new_sizes))
        new_sizes.extend(reshape_of[dim][0] if dim in reshape_of else [size])
    grouped: list[int] = []
    consumed: dict[int, int] = {}
    for dim, _ in axes:
        k = consumed.get(dim, 0)
        consumed[dim] = k + 1
        grouped.append(reshape_of[dim][1][k] + offsets[dim])
    perm = [i for i in range(len(new_sizes)) if i not in grouped] + grouped
    order = _transposed_offsets(new_sizes, perm)
    group_size = _prod(new_sizes[i] for i in grouped)
    flat = [devices[i] for i in order]
    return tuple(tuple(flat[i : i + group_size]) for i in range(0, len(flat), group_size))


def _decode_source_target_pairs(raw: str, opcode: str | None) -> tuple[tuple[int, int], ...]:
    groups = _parse_or_raise(_groups_list, raw)
    for pair in groups:
        if len(pair) != 2:
            raise DecodeError(f"source_target_pairs entry {pair} is not a pair", 0)
    return groups


# --- dictionaries -------------------------------------------------------------------------


def _decode_frontend_attributes(raw: str, opcode: str | None) -> dict[str, str]:
    """``{key="escaped",key2={raw text}}``: brace values stay raw text, braces included."""

    def parse(c: _Cursor) -> dict[str, str]:
        c.expect("{")
        out: dict[str, str] = {}
        if c.accept("}"):
            return out
        while True:
            key_at = c.skip()
            key = c.string() if c.at('"') else c.ident()
            c.expect("=")
            pos = c.skip()
            if c.at('"'):
                value = c.string()
            elif c.at("{"):
                c.pos = _json_dict_end(c.text, pos)
                value = c.text[pos : c.pos]
            else:
                value = c.balanced()
            if key in out:
                raise DecodeError(f"frontend attribute {key!r} given twice", key_at)
            out[key] = value
            if c.accept(","):
                continue
            c.expect("}")
            return out

    return _parse_or_raise(parse, raw)


def _decode_backend_config(raw: str, opcode: str | None) -> dict | str:
    """A dict when the text is a JSON object, else the text (unescaped if it was quoted)."""
    text = raw
    if raw.startswith('"'):
        text = _decode_string(raw, opcode)
    elif raw.startswith("{"):
        end = _json_dict_end(raw, 0)
        if end != len(raw):
            raise DecodeError("unexpected text after backend_config", end)
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            return text
        if isinstance(value, dict):
            return value
    return text


def _decode_statistics(raw: str, opcode: str | None) -> dict[str, float | int]:
    """``{visualizing_index=1,stat-1=33,stat-2=44}``."""

    def parse(c: _Cursor) -> dict[str, float | int]:
        c.expect("{")
        out: dict[str, float | int] = {}
        if c.accept("}"):
            return out
        while True:
            key = c.ident()
            c.expect("=")
            out[key] = c.number()
            if c.accept(","):
                continue
            c.expect("}")
            return out

    return _parse_or_raise(parse, raw)


# --- aliasing, layouts, shapes, literals --------------------------------------------------


def _output_to_operand_aliasing(raw: str, opcode: str | None) -> list[OperandAlias]:
    """``{{0}: (1, {}), {1}: (0, {0})}``."""

    def parse(c: _Cursor) -> list[OperandAlias]:
        c.expect("{")
        out: list[OperandAlias] = []
        if c.accept("}"):
            return out
        while True:
            output_index = c.int_list()
            c.expect(":")
            c.expect("(")
            operand = c.int()
            c.expect(",")
            operand_index = c.int_list()
            c.expect(")")
            out.append(OperandAlias(output_index, operand, operand_index))
            if c.accept(","):
                continue
            c.expect("}")
            return out

    return _parse_or_raise(parse, raw)


def _input_output_alias(raw: str, opcode: str | None) -> list[ParameterAlias]:
    """``{ {0}: (0, {}, may-alias), {1}: (1, {}, must-alias) }``; the kind is optional."""

    def parse(c: _Cursor) -> list[ParameterAlias]:
        c.expect("{")
        out: list[ParameterAlias] = []
        if c.accept("}"):
            return out
        while True:
            output_index = c.int_list()
            c.expect(":")
            c.expect("(")
            parameter = c.int()
            c.expect(",")
            parameter_index = c.int_list()
            kind = "may-alias"
            if c.accept(","):
                at = c.skip()
                kind = c.ident()
                if kind not in ("may-alias", "must-alias"):
                    raise DecodeError(f"expected may-alias or must-alias, found {kind!r}", at)
            c.expect(")")
            out.append(ParameterAlias(output_index, parameter, parameter_index, kind))
            if c.accept(","):
                continue
            c.expect("}")
            return out

    return _parse_or_raise(parse, raw)


def _buffer_donor(raw: str, opcode: str | None) -> list[BufferDonor]:
    """``{ (0, {}), (1, {0}) }``."""

    def parse(c: _Cursor) -> list[BufferDonor]:
        c.expect("{")
        out: list[BufferDonor] = []
        if c.accept("}"):
            return out
        while True:
            c.expect("(")
            parameter = c.int()
            c.expect(",")
            index = c.int_list()
            c.expect(")")
            out.append(BufferDonor(parameter, index))
            if c.accept(","):
                continue
            c.expect("}")
            return out

    return _parse_or_raise(parse, raw)


def _shape_at(c: _Cursor) -> Shape:
    shape, c.pos = parse_shape_prefix(c.text, c.skip())
    return shape


def _entry_computation_layout(raw: str, opcode: str | None) -> ComputationLayout:
    def parse(c: _Cursor) -> ComputationLayout:
        c.expect("{")
        c.expect("(")
        params: list[Shape] = []
        if not c.accept(")"):
            while True:
                params.append(_shape_at(c))
                if c.accept(","):
                    continue
                c.expect(")")
                break
        c.expect("->")
        result = _shape_at(c)
        c.expect("}")
        return ComputationLayout(tuple(params), result)

    return _parse_or_raise(parse, raw)


def _shape_list(raw: str, opcode: str | None) -> tuple[Shape, ...]:
    def parse(c: _Cursor) -> tuple[Shape, ...]:
        c.expect("{")
        if c.accept("}"):
            return ()
        out = []
        while True:
            out.append(_shape_at(c))
            if c.accept(","):
                continue
            c.expect("}")
            return tuple(out)

    return _parse_or_raise(parse, raw)


def _decode_shape(raw: str, opcode: str | None) -> Shape:
    return parse_shape(raw)


def _decode_literal(raw: str, opcode: str | None) -> ShapedLiteral:
    """``literal=s32[2]{0} {1, 2}``, or a tuple ``( s32[2]{0} {1, 2}, pred[] true )``."""
    from .literals import parse_literal

    def value_of(text: str, start: int, end: int, shape: Shape) -> Any:
        body = text[start:end].strip()
        lead = start + (len(text[start:end]) - len(text[start:end].lstrip()))
        try:
            return parse_literal(body, shape)
        except DecodeError as e:
            raise DecodeError(e.message, lead + e.offset) from None

    if raw.startswith("("):
        c = _Cursor(raw, 1)
        shapes, values = [], []
        if not c.accept(")"):
            while True:
                shape = _shape_at(c)
                start = c.pos
                end = _literal_end(raw, start)
                shapes.append(shape)
                values.append(value_of(raw, start, end, shape))
                c.pos = end
                if c.accept(","):
                    continue
                c.expect(")")
                break
        c.done()
        return ShapedLiteral(Shape("tuple", tuple_shapes=tuple(shapes)), tuple(values))
    shape, end = parse_shape_prefix(raw, 0)
    return ShapedLiteral(shape, value_of(raw, end, len(raw), shape))


def _literal_end(text: str, pos: int) -> int:
    """End of one element literal inside a tuple literal: the next ',' or ')' at depth 0."""
    depth = 0
    for m in _SPLIT_TOKEN.finditer(text, pos):
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


# --- rarer structured values --------------------------------------------------------------


def _decode_domain(raw: str, opcode: str | None) -> Domain:
    def parse(c: _Cursor) -> Domain:
        c.expect("{")
        fields: dict[str, Any] = {}
        while not c.accept("}"):
            key_at = c.skip()
            key = c.ident()
            c.expect("=")
            if key == "kind":
                fields["kind"] = c.string()
            elif key in ("entry", "exit"):
                fields[key] = c.balanced()
            else:
                raise DecodeError(f"unknown domain field {key!r}", key_at)
            c.accept(",")
        if "kind" not in fields:
            raise DecodeError("domain needs kind=", 0)
        if fields["kind"] == "sharding":
            for key in ("entry", "exit"):
                if key in fields:
                    fields[key] = _decode_sharding(fields[key], None)
        return Domain(**fields)

    return _parse_or_raise(parse, raw)


def _decode_result_accuracy(raw: str, opcode: str | None) -> ResultAccuracy:
    def parse(c: _Cursor) -> ResultAccuracy:
        c.expect("{")
        key_at = c.skip()
        key = c.ident()
        c.expect("=")
        if key == "mode":
            result = ResultAccuracy(mode=c.ident().lower())
        elif key == "tolerance":
            c.expect("{")
            fields: dict[str, Any] = {}
            while not c.accept("}"):
                name_at = c.skip()
                name = c.ident()
                if name not in ("rtol", "atol", "ulps"):
                    raise DecodeError(f"unknown tolerance field {name!r}", name_at)
                c.expect("=")
                value = c.number()
                fields[name] = int(value) if name == "ulps" else float(value)
                c.accept(",")
            result = ResultAccuracy(**fields)
        else:
            raise DecodeError(f"expected mode= or tolerance=, found {key!r}", key_at)
        c.expect("}")
        return result

    return _parse_or_raise(parse, raw)


def _decode_raw(raw: str, opcode: str | None) -> str:
    """Attributes kept as text (``origin``, ``sparsity``...); checked only for balance."""
    return raw


# ==========================================================================================
# The table: attribute name -> decoder
# ==========================================================================================

_SINGLE_COMPUTATION = (
    "calls", "to_apply", "condition", "body", "true_computation", "false_computation",
    "select", "scatter",
)
_COMPUTATION_LISTS = ("branch_computations", "called_computations", "control-predecessors")
_INT_LISTS = (
    "dimensions", "slice_sizes", "dynamic_slice_sizes", "fft_length",
    "lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims", "rhs_contracting_dims",
    "offset_dims", "collapsed_slice_dims", "start_index_map", "operand_batching_dims",
    "start_indices_batching_dims", "update_window_dims", "inserted_window_dims",
    "scatter_dims_to_operand_dims", "input_batching_dims", "scatter_indices_batching_dims",
    "lhs_ragged_dims", "rhs_ragged_dims", "rhs_group_dims",
)
_INTS = (
    "index", "iota_dimension", "feature_index", "feature_group_count", "batch_group_count",
    "index_vector_dim", "channel_id", "k", "exponent_bits", "mantissa_bits", "delta",
    "inferred_dimension", "cross_program_prefetch_index", "num_carries", "replica_count",
    "num_partitions",
)
_FLOATS = ("epsilon",)
_BOOLS = (
    "is_stable", "largest", "indices_are_sorted", "unique_indices", "constrain_layout",
    "use_global_device_ids", "is_host_transfer", "left_side", "lower", "unit_diagonal",
    "custom_call_has_side_effect", "is_composite", "is_reverse", "is_associative",
    "is_scheduled", "alias_passthrough_params", "is_cross_program_prefetch",
)
_ENUMS = (
    "kind", "direction", "type", "fft_type", "distribution", "algorithm", "padding_type",
    "schedule", "custom_call_schedule", "api_version", "transpose_a", "conv_kind", "mode",
)
_STRINGS = ("custom_call_target", "infeed_config", "outfeed_config", "async_execution_thread")
_RAW = ("origin", "sparsity", "origin_recovery_table")

_DECODERS: dict[str, Callable[[str, str | None], Any]] = {}
for _name in _SINGLE_COMPUTATION:
    _DECODERS[_name] = _decode_computation
for _name in _COMPUTATION_LISTS:
    _DECODERS[_name] = _decode_computation_list
for _names, _decoder in (
    (_INT_LISTS, _decode_int_list),
    (_INTS, _decode_int),
    (_FLOATS, _decode_float),
    (_BOOLS, _decode_bool),
    (_ENUMS, _decode_enum),
    (_STRINGS, _decode_string),
    (_RAW, _decode_raw),
):
    for _name in _names:
        _DECODERS[_name] = _decoder
_DECODERS.update(
    {
        "metadata": _decode_metadata,
        "window": _decode_window,
        "dim_labels": _decode_dim_labels,
        "padding": _decode_padding,
        "slice": _decode_slice,
        "sharding": _decode_sharding,
        "replica_groups": _decode_replica_groups,
        "source_target_pairs": _decode_source_target_pairs,
        "frontend_attributes": _decode_frontend_attributes,
        "backend_config": _decode_backend_config,
        "statistics": _decode_statistics,
        "output_to_operand_aliasing": _output_to_operand_aliasing,
        "input_output_alias": _input_output_alias,
        "buffer_donor": _buffer_donor,
        "entry_computation_layout": _entry_computation_layout,
        "operand_precision": _decode_enum_list,
        "operand_layout_constraints": _shape_list,
        "outfeed_shape": _decode_shape,
        "literal": _decode_literal,
        "parameter_replication": _decode_bool_list,
        "allow_spmd_sharding_propagation_to_parameters": _decode_bool_or_list,
        "allow_spmd_sharding_propagation_to_output": _decode_bool_or_list,
        "domain": _decode_domain,
        "result_accuracy": _decode_result_accuracy,
    }
)
del _name, _names, _decoder

#: Every attribute name hloscope decodes (instruction and module attributes).
KNOWN_ATTRIBUTE_NAMES: frozenset[str] = frozenset(_DECODERS)

_warned: set[str] = set()


def decode_attribute(name: str, raw: str, opcode: str | None = None) -> Any:
    """Decode one attribute value; unknown names give ``raw`` back (with a warning once).

    Raises :class:`DecodeError` with an offset into ``raw``.
    """
    decoder = _DECODERS.get(name)
    if decoder is None:
        if name not in _warned:
            _warned.add(name)
            warnings.warn(
                f"unknown HLO attribute {name!r} (from a newer XLA?); kept as raw text",
                UnknownAttributeWarning,
                stacklevel=3,
            )
        return raw
    if not raw:
        raise DecodeError(f"{name} has no value", 0)
    return decoder(raw, opcode)


# ==========================================================================================
# The lazy mapping
# ==========================================================================================

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
    def for_module(cls, module: "Module") -> "Attributes":
        """The header attributes of ``module`` (``is_scheduled``, ``entry_computation_layout``...)."""
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

    # --- Mapping ------------------------------------------------------------------------
    def __getitem__(self, name: str) -> Any:
        values = self._values
        if name in values:
            return values[name]
        raw, offset = self._split()[name]
        try:
            value = decode_attribute(name, raw, self._opcode)
        except DecodeError as e:
            raise self._error(f"bad {name}: {e.message}", offset + e.offset) from None
        values[name] = value
        return value

    def __contains__(self, name: object) -> bool:
        return name in self._split()

    def __iter__(self) -> Iterator[str]:
        return iter(self._split())

    def __len__(self) -> int:
        return len(self._split())

    def get(self, name: str, default: Any = None) -> Any:
        if name not in self._split():
            return default
        return self[name]

    # --- raw access ---------------------------------------------------------------------
    @property
    def text(self) -> str:
        """The whole attribute text as given."""
        return self._text

    def raw(self, name: str) -> str:
        """The value of ``name`` exactly as written (``KeyError`` if absent)."""
        return self._split()[name][0]

    def offset(self, name: str) -> int:
        """Where the value of ``name`` starts in :attr:`text`."""
        return self._split()[name][1]

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

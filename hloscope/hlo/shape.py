"""Shapes and layouts, and their text grammar.

A shape is an array (``f32[2,<=3,?]{2,1,0:T(8,128)}``), a tuple of shapes nested to any depth
(``(f32[2], (s32[], pred[]))``), or a buffer (``b(f32[4])``). :func:`parse_shape` reads the text
XLA prints; ``str(shape)`` prints it back the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import _lex
from .dtypes import ElementType, element_type
from .errors import DecodeError

__all__ = ["Shape", "Layout", "parse_shape", "parse_shape_prefix", "UNBOUNDED"]

UNBOUNDED: None = None  # a '?' dimension: dynamic with no known bound


@dataclass(frozen=True, slots=True)
class Layout:
    """An array layout: ``{minor_to_major:D(...)T(...)L(n)#(t)*(t)E(n)S(n)SC(...)P(shape)M(n)}``.

    Only ``minor_to_major`` matters on CPU; the other fields appear in TPU and GPU dumps.
    A tile dimension written ``*`` (combined) is stored as ``None``.
    """

    minor_to_major: tuple[int, ...] = ()
    dim_level_types: tuple[str, ...] = ()
    tiles: tuple[tuple[int | None, ...], ...] = ()
    tail_padding_alignment: int = 1
    index_primitive_type: str | None = None
    pointer_primitive_type: str | None = None
    element_size_in_bits: int = 0
    memory_space: int = 0
    split_configs: tuple[tuple[int, tuple[int, ...]], ...] = ()
    physical_shape: Shape | None = None
    dynamic_shape_metadata_prefix_bytes: int = 0

    def __str__(self) -> str:
        text = "{" + ",".join(map(str, self.minor_to_major))
        extra = ""
        if self.dim_level_types:
            extra += "D(" + ",".join(self.dim_level_types) + ")"
        if self.tiles:
            extra += "T" + "".join(
                "(" + ",".join("*" if d is None else str(d) for d in tile) + ")"
                for tile in self.tiles
            )
        if self.tail_padding_alignment != 1:
            extra += f"L({self.tail_padding_alignment})"
        if self.index_primitive_type:
            extra += f"#({self.index_primitive_type})"
        if self.pointer_primitive_type:
            extra += f"*({self.pointer_primitive_type})"
        if self.element_size_in_bits:
            extra += f"E({self.element_size_in_bits})"
        if self.memory_space:
            extra += f"S({self.memory_space})"
        if self.split_configs:
            extra += "SC" + "".join(
                f"({dim}:{','.join(map(str, idx))})" for dim, idx in self.split_configs
            )
        if self.physical_shape is not None:
            extra += f"P({self.physical_shape})"
        if self.dynamic_shape_metadata_prefix_bytes:
            extra += f"M({self.dynamic_shape_metadata_prefix_bytes})"
        if extra:
            text += ":" + extra
        return text + "}"


@dataclass(frozen=True, slots=True)
class Shape:
    """An HLO shape.

    For arrays, ``dims`` holds each dimension's size (the bound for ``<=N``, ``None`` for ``?``) and
    ``dynamic_dims`` says which are dynamic. For tuples ``element_type`` is ``"tuple"`` and
    ``tuple_shapes`` holds the elements. A buffer shape ``b(...)`` is ``"buffer"`` with one element.
    """

    element_type: str
    dims: tuple[int | None, ...] = ()
    dynamic_dims: tuple[bool, ...] = ()
    layout: Layout | None = None
    tuple_shapes: tuple[Shape, ...] = ()
    _text: str | None = field(default=None, compare=False, repr=False)

    # --- kind -----------------------------------------------------------------------------
    @property
    def is_tuple(self) -> bool:
        return self.element_type == "tuple"

    @property
    def is_buffer(self) -> bool:
        return self.element_type == "buffer"

    @property
    def is_array(self) -> bool:
        return not (self.is_tuple or self.is_buffer) and self.dtype.is_array_type

    @property
    def is_token(self) -> bool:
        return self.element_type == "token"

    @property
    def dtype(self) -> ElementType:
        return element_type(self.element_type)

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def is_dynamic(self) -> bool:
        return any(self.dynamic_dims) or any(s.is_dynamic for s in self.tuple_shapes)

    # --- sizes ----------------------------------------------------------------------------
    @property
    def element_count(self) -> int | None:
        """Number of elements of an array (upper bound for ``<=N`` dims, ``None`` with ``?``).

        For a tuple or buffer, the sum over its leaves.
        """
        if self.tuple_shapes or self.is_tuple or self.is_buffer:
            total = 0
            for sub in self.tuple_shapes:
                n = sub.element_count
                if n is None:
                    return None
                total += n
            return total
        count = 1
        for d in self.dims:
            if d is None:
                return None
            count *= d
        return count

    @property
    def byte_size(self) -> int | None:
        """Bytes of data the shape holds, as XLA sizes buffers.

        Sub-byte types take one byte per element unless the layout packs them with ``E(n)``
        (then ``ceil(count * n / 8)``). Tuples and buffers count the data of their leaves (not
        XLA's 8-byte pointer table). ``None`` when a dimension is unbounded (``?``).
        """
        if self.is_tuple or self.is_buffer:
            total = 0
            for sub in self.tuple_shapes:
                n = sub.byte_size
                if n is None:
                    return None
                total += n
            return total
        count = self.element_count
        if count is None:
            return None
        dtype = self.dtype
        if not dtype.is_array_type:
            return 0
        if self.layout is not None and self.layout.element_size_in_bits:
            return (count * self.layout.element_size_in_bits + 7) // 8
        return count * dtype.storage_bytes

    def leaves(self) -> list[Shape]:
        """The array shapes of a (nested) tuple in order; ``[self]`` for an array."""
        if not (self.is_tuple or self.is_buffer):
            return [self]
        out: list[Shape] = []
        for sub in self.tuple_shapes:
            out.extend(sub.leaves())
        return out

    # --- text -----------------------------------------------------------------------------
    def to_text(self, *, layout: bool = True) -> str:
        if self.is_tuple:
            # XLA marks every fifth element with an index comment: (a, b, c, d, e, /*index=5*/f).
            return (
                "("
                + ", ".join(
                    (f"/*index={i}*/" if i and i % 5 == 0 else "") + s.to_text(layout=layout)
                    for i, s in enumerate(self.tuple_shapes)
                )
                + ")"
            )
        if self.is_buffer:
            return "b(" + self.tuple_shapes[0].to_text(layout=layout) + ")"
        dims = []
        for d, dyn in zip(self.dims, self.dynamic_dims):
            dims.append("?" if d is None else (f"<={d}" if dyn else str(d)))
        text = f"{self.element_type}[{','.join(dims)}]"
        if layout and self.layout is not None:
            text += str(self.layout)
        return text

    def __str__(self) -> str:
        return self.to_text()


# ------------------------------------------------------------------------------------------
# Parsing
# ------------------------------------------------------------------------------------------

_ARRAY_RE = re.compile(r"([a-z][a-z0-9_]*)\[([^\]]*)\]")
_SIMPLE_LAYOUT_RE = re.compile(r"\{(\d+(?:,\d+)*)?\}")
_WS_RE = _lex.WS_RE
_INT_RE = re.compile(r"-?\d+")

_cache: dict[str, Shape] = {}


def parse_shape(text: str) -> Shape:
    """Parse a whole shape; anything left over is an error. Results are cached by text."""
    shape = _cache.get(text)
    if shape is not None:
        return shape
    shape, end = parse_shape_prefix(text, 0)
    end = _WS_RE.match(text, end).end()
    if end != len(text):
        raise DecodeError(f"unexpected text after shape: {text[end : end + 20]!r}", end)
    if len(_cache) > 100_000:
        _cache.clear()
    _cache[text] = shape
    return shape


def parse_shape_prefix(text: str, pos: int) -> tuple[Shape, int]:
    """Parse a shape starting at ``pos``; return it and the index just past it."""
    pos = _WS_RE.match(text, pos).end()
    if pos >= len(text):
        raise DecodeError("expected a shape, found end of text", pos)
    ch = text[pos]
    if ch == "(":
        return _parse_tuple(text, pos)
    if text.startswith("b(", pos):
        inner, end = parse_shape_prefix(text, pos + 2)
        end = _WS_RE.match(text, end).end()
        if not text.startswith(")", end):
            raise DecodeError("expected ')' to close buffer shape", end)
        return Shape("buffer", tuple_shapes=(inner,)), end + 1
    m = _ARRAY_RE.match(text, pos)
    if m is None:
        raise DecodeError(f"expected a shape, found {text[pos : pos + 20]!r}", pos)
    etype = m.group(1)
    if etype == "opaque_type":
        etype = "opaque"
    if element_type(etype).kind == "unknown" and not _looks_like_type(etype):
        raise DecodeError(f"unknown element type {etype!r}", pos)
    dims, dynamic = _parse_dims(m.group(2), m.start(2))
    end = m.end()
    layout = None
    if end < len(text) and text[end] == "{":
        lm = _SIMPLE_LAYOUT_RE.match(text, end)
        if lm is not None:
            mtm = lm.group(1)
            layout = Layout(tuple(int(x) for x in mtm.split(","))) if mtm else Layout()
            end = lm.end()
        elif _layout_follows(text, end):
            layout, end = _parse_layout(text, end)
    return Shape(etype, dims, dynamic, layout), end


def _looks_like_type(name: str) -> bool:
    # Accept plausible future element types (a letter then digits/letters, e.g. f6e2m3fn).
    return len(name) >= 2 and name[0] in "fsucb" and name[1].isdigit()


def _parse_dims(text: str, offset: int) -> tuple[tuple[int | None, ...], tuple[bool, ...]]:
    if not text:
        return (), ()
    dims: list[int | None] = []
    dynamic: list[bool] = []
    at = offset
    for part in text.split(","):
        p = part.strip()
        if p.isdigit():
            dims.append(int(p))
            dynamic.append(False)
        elif p == "?":
            dims.append(None)
            dynamic.append(True)
        elif p.startswith("<=") and p[2:].strip().isdigit():
            dims.append(int(p[2:]))
            dynamic.append(True)
        else:
            raise DecodeError(f"bad dimension {p!r}", at)
        at += len(part) + 1
    return tuple(dims), tuple(dynamic)


def _layout_follows(text: str, pos: int) -> bool:
    """XLA reads '{' after a shape as a layout only if an int or ':' comes next."""
    nxt = _WS_RE.match(text, pos + 1).end()
    return nxt < len(text) and (text[nxt].isdigit() or text[nxt] == ":")


def _parse_tuple(text: str, pos: int) -> tuple[Shape, int]:
    pos += 1
    elements: list[Shape] = []
    pos = _WS_RE.match(text, pos).end()
    if text.startswith(")", pos):
        return Shape("tuple"), pos + 1
    while True:
        sub, pos = parse_shape_prefix(text, pos)
        elements.append(sub)
        pos = _WS_RE.match(text, pos).end()
        if text.startswith(",", pos):
            pos += 1
            continue
        if text.startswith(")", pos):
            return Shape("tuple", tuple_shapes=tuple(elements)), pos + 1
        raise DecodeError("expected ',' or ')' in tuple shape", pos)


def _expect(text: str, pos: int, token: str) -> int:
    pos = _WS_RE.match(text, pos).end()
    if not text.startswith(token, pos):
        raise DecodeError(f"expected {token!r} in layout", pos)
    return pos + len(token)


def _int_at(text: str, pos: int) -> tuple[int, int]:
    pos = _WS_RE.match(text, pos).end()
    m = _INT_RE.match(text, pos)
    if m is None:
        raise DecodeError("expected an integer in layout", pos)
    return int(m.group()), m.end()


def _paren_ints(
    text: str, pos: int, allow_star: bool = False
) -> tuple[tuple[int | None, ...], int]:
    pos = _expect(text, pos, "(")
    values: list[int | None] = []
    pos = _WS_RE.match(text, pos).end()
    if text.startswith(")", pos):
        return (), pos + 1
    while True:
        pos = _WS_RE.match(text, pos).end()
        if allow_star and text.startswith("*", pos):
            values.append(None)
            pos += 1
        else:
            value, pos = _int_at(text, pos)
            values.append(value)
        pos = _WS_RE.match(text, pos).end()
        if text.startswith(",", pos):
            pos += 1
        elif text.startswith(")", pos):
            return tuple(values), pos + 1
        else:
            raise DecodeError("expected ',' or ')' in layout", pos)


def _one_int(text: str, pos: int) -> tuple[int, int]:
    """``(n)``: exactly one integer in parentheses."""
    values, end = _paren_ints(text, pos)
    if len(values) != 1:
        raise DecodeError(f"expected one integer in parentheses, found {len(values)}", pos)
    return values[0], end  # type: ignore[return-value]


def _parse_layout(text: str, pos: int) -> tuple[Layout, int]:
    pos += 1  # '{'
    minor_to_major: list[int] = []
    pos = _WS_RE.match(text, pos).end()
    while pos < len(text) and (text[pos].isdigit()):
        value, pos = _int_at(text, pos)
        minor_to_major.append(value)
        pos = _WS_RE.match(text, pos).end()
        if text.startswith(",", pos):
            pos = _WS_RE.match(text, pos + 1).end()
    fields: dict = {}
    if text.startswith(":", pos):
        pos += 1
        while True:
            pos = _WS_RE.match(text, pos).end()
            if text.startswith("}", pos):
                break
            if text.startswith("SC", pos):
                pos += 2
                configs = []
                while text.startswith("(", pos):
                    dim, pos = _int_at(text, pos + 1)
                    pos = _expect(text, pos, ":")
                    idx: list[int] = []
                    while True:
                        pos = _WS_RE.match(text, pos).end()
                        if text.startswith(")", pos):
                            pos += 1
                            break
                        value, pos = _int_at(text, pos)
                        idx.append(value)
                        pos = _WS_RE.match(text, pos).end()
                        if text.startswith(",", pos):
                            pos += 1
                    configs.append((dim, tuple(idx)))
                fields["split_configs"] = tuple(configs)
            elif text.startswith("D(", pos):
                close = text.find(")", pos)
                if close < 0:
                    raise DecodeError("unterminated D(...) in layout", pos)
                fields["dim_level_types"] = tuple(
                    p.strip() for p in text[pos + 2 : close].split(",") if p.strip()
                )
                pos = close + 1
            elif text.startswith("T", pos):
                pos += 1
                tiles = []
                while text.startswith("(", _WS_RE.match(text, pos).end()):
                    tile, pos = _paren_ints(text, pos, allow_star=True)
                    tiles.append(tile)
                fields["tiles"] = tuple(tiles)
            elif text.startswith("L", pos):
                value, pos = _one_int(text, pos + 1)
                fields["tail_padding_alignment"] = value
            elif text.startswith("#(", pos) or text.startswith("*(", pos):
                close = text.find(")", pos)
                if close < 0:
                    raise DecodeError("unterminated type in layout", pos)
                key = "index_primitive_type" if text[pos] == "#" else "pointer_primitive_type"
                fields[key] = text[pos + 2 : close].strip()
                pos = close + 1
            elif text.startswith("E", pos):
                value, pos = _one_int(text, pos + 1)
                fields["element_size_in_bits"] = value
            elif text.startswith("S", pos):
                value, pos = _one_int(text, pos + 1)
                fields["memory_space"] = value
            elif text.startswith("P(", pos):
                physical, pos = parse_shape_prefix(text, pos + 2)
                pos = _expect(text, pos, ")")
                fields["physical_shape"] = physical
            elif text.startswith("M", pos):
                value, pos = _one_int(text, pos + 1)
                fields["dynamic_shape_metadata_prefix_bytes"] = value
            else:
                raise DecodeError(f"unknown layout field {text[pos : pos + 8]!r}", pos)
    pos = _expect(text, pos, "}")
    return Layout(tuple(minor_to_major), **fields), pos

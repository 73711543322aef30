"""Shapes and layouts, and their text grammar.

A shape is an array (``f32[2,<=3,?]{2,1,0:T(8,128)}``), a tuple of shapes nested to any depth
(``(f32[2], (s32[], pred[]))``), or a buffer (``b(f32[4])``). :func:`parse_shape` reads the text
XLA prints; ``str(shape)`` prints it back the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
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
        return any(any(s.dynamic_dims) for s in self.walk())

    @property
    def minor_to_major(self) -> tuple[int, ...]:
        """The order of dimensions in memory, fastest-varying first.

        The layout's when it names every dimension; otherwise XLA's default layout, where the
        last dimension varies fastest (``{rank-1, ..., 1, 0}``), as for a shape printed with
        no layout.
        """
        layout = self.layout
        if layout is not None and len(layout.minor_to_major) == len(self.dims):
            return layout.minor_to_major
        return tuple(range(len(self.dims) - 1, -1, -1))

    # --- walking ----------------------------------------------------------------------------
    # Tuples nest to any depth (XLA reads 5,000 levels), so every walk below is an explicit
    # stack, never recursion: Python would stop at about a thousand levels.
    def walk(self) -> Iterator[Shape]:
        """This shape and every shape inside it, depth first, in text order."""
        stack = [self]
        while stack:
            shape = stack.pop()
            yield shape
            if shape.tuple_shapes:
                stack.extend(reversed(shape.tuple_shapes))

    def _flat_key(self) -> tuple:
        """Every field of every nested shape in one flat tuple: what equality and hashing use,
        so that comparing two deep tuples does not recurse."""
        key: list = []
        for s in self.walk():
            key += (s.element_type, s.dims, s.dynamic_dims, s.layout, len(s.tuple_shapes))
        return tuple(key)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Shape):
            return NotImplemented
        return self._flat_key() == other._flat_key()

    def __hash__(self) -> int:
        return hash(self._flat_key())

    # --- sizes ----------------------------------------------------------------------------
    @property
    def element_count(self) -> int | None:
        """Number of elements of an array (upper bound for ``<=N`` dims, ``None`` with ``?``).

        For a tuple or buffer, the sum over its leaves.
        """
        total = 0
        for leaf in self.leaves():
            if leaf.is_tuple or leaf.is_buffer:
                continue  # an empty tuple holds no elements
            count = 1
            for d in leaf.dims:
                if d is None:
                    return None
                count *= d
            total += count
        return total

    @property
    def byte_size(self) -> int | None:
        """Bytes of data the shape holds, as XLA sizes buffers.

        Sub-byte types take one byte per element unless the layout packs them with ``E(n)``
        (then ``ceil(count * n / 8)``). Tuples and buffers count the data of their leaves (not
        XLA's 8-byte pointer table). ``None`` when a dimension is unbounded (``?``).
        """
        total = 0
        for leaf in self.leaves():
            if leaf.is_tuple or leaf.is_buffer:
                continue
            count = leaf.element_count
            if count is None:
                return None
            dtype = leaf.dtype
            if not dtype.is_array_type:
                continue
            if leaf.layout is not None and leaf.layout.element_size_in_bits:
                total += (count * leaf.layout.element_size_in_bits + 7) // 8
            else:
                total += count * dtype.storage_bytes
        return total

    def leaves(self) -> list[Shape]:
        """The array shapes of a (nested) tuple in order; ``[self]`` for an array."""
        if not (self.is_tuple or self.is_buffer):
            return [self]
        return [s for s in self.walk() if not (s.is_tuple or s.is_buffer)]

    # --- text -----------------------------------------------------------------------------
    def to_text(self, *, layout: bool = True) -> str:
        if not (self.is_tuple or self.is_buffer):
            return self._array_text(layout)
        # An explicit stack of work items: a Shape to print, or a literal piece of text.
        out: list[str] = []
        stack: list[Shape | str] = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
            elif item.is_tuple:
                # XLA marks every fifth element with an index comment: (a, b, /*index=5*/f).
                todo: list[Shape | str] = ["("]
                for i, sub in enumerate(item.tuple_shapes):
                    if i:
                        todo.append(", " + (f"/*index={i}*/" if i % 5 == 0 else ""))
                    todo.append(sub)
                todo.append(")")
                stack.extend(reversed(todo))
            elif item.is_buffer:
                stack.extend((")", item.tuple_shapes[0], "b("))
            else:
                out.append(item._array_text(layout))
        return "".join(out)

    def _array_text(self, layout: bool) -> str:
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

_ARRAY_RE = re.compile(r"([a-z][a-z0-9_]*)[ \t]*\[([^\]]*)\]")
_SIMPLE_LAYOUT_RE = re.compile(r"\{(\d+(?:,\d+)*)?\}")
_match_ws = _lex.match_ws
_INT_RE = re.compile(r"-?\d+")
_INT64_MAX = (1 << 63) - 1  # XLA reads dimensions as int64 and rejects larger ones

_cache: dict[str, Shape] = {}


def parse_shape(text: str) -> Shape:
    """Parse a whole shape; anything left over is an error. Results are cached by text."""
    shape = _cache.get(text)
    if shape is not None:
        return shape
    shape, end = parse_shape_prefix(text, 0)
    end = _match_ws(text, end).end()
    if end != len(text):
        raise DecodeError(f"unexpected text after shape: {text[end : end + 20]!r}", end)
    if len(_cache) > 100_000:
        _cache.clear()
    _cache[text] = shape
    return shape


def parse_shape_prefix(text: str, pos: int) -> tuple[Shape, int]:
    """Parse a shape starting at ``pos``; return it and the index just past it.

    Tuples and buffers are read with an explicit stack of open groups (``(`` or ``b(``), each
    collecting its elements, so nesting depth costs memory, not Python stack frames.
    """
    groups: list[tuple[str, list[Shape]]] = []  # (kind, elements so far) of each open group
    while True:
        pos = _match_ws(text, pos).end()
        if pos >= len(text):
            raise DecodeError("expected a shape, found end of text", pos)
        if text[pos] == "(":
            groups.append(("tuple", []))
            pos = _match_ws(text, pos + 1).end()
            if not text.startswith(")", pos):
                continue  # the first element follows
            shape: Shape = Shape("tuple")
            groups.pop()
            pos += 1
        elif text.startswith("b(", pos):
            groups.append(("buffer", []))
            pos += 2
            continue
        else:
            shape, pos = _array_prefix(text, pos)
        # A shape is complete: hand it to the groups it closes.
        while groups:
            kind, elements = groups[-1]
            elements.append(shape)
            pos = _match_ws(text, pos).end()
            if kind == "tuple" and text.startswith(",", pos):
                pos += 1
                break  # the next element follows
            if not text.startswith(")", pos):
                if kind == "tuple":
                    raise DecodeError("expected ',' or ')' in tuple shape", pos)
                raise DecodeError("expected ')' to close buffer shape", pos)
            groups.pop()
            pos += 1
            shape = Shape(kind, tuple_shapes=tuple(elements))
        else:
            return shape, pos


def _array_prefix(text: str, pos: int) -> tuple[Shape, int]:
    """An array shape at ``pos``: ``f32[2,<=3]{1,0}``. XLA's lexer lets whitespace stand
    between the element type and ``[`` (``s32 [4]``) and before the layout."""
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
    brace = end
    if brace < len(text) and text[brace] in " \t\n/":
        brace = _match_ws(text, end).end()
    if brace < len(text) and text[brace] == "{":
        lm = _SIMPLE_LAYOUT_RE.match(text, brace)
        if lm is not None:
            mtm = lm.group(1)
            layout = Layout(tuple(int(x) for x in mtm.split(","))) if mtm else Layout()
            end = lm.end()
        elif _layout_follows(text, brace):
            layout, end = _parse_layout(text, brace)
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
        if dims[-1] is not None and dims[-1] > _INT64_MAX:
            raise DecodeError(f"dimension {p!r} does not fit in int64", at)
        at += len(part) + 1
    return tuple(dims), tuple(dynamic)


def _layout_follows(text: str, pos: int) -> bool:
    """XLA reads '{' after a shape as a layout only if an int or ':' comes next."""
    nxt = _match_ws(text, pos + 1).end()
    return nxt < len(text) and (text[nxt].isdigit() or text[nxt] == ":")


def _parse_tuple(text: str, pos: int) -> tuple[Shape, int]:
    pos += 1
    elements: list[Shape] = []
    pos = _match_ws(text, pos).end()
    if text.startswith(")", pos):
        return Shape("tuple"), pos + 1
    while True:
        sub, pos = parse_shape_prefix(text, pos)
        elements.append(sub)
        pos = _match_ws(text, pos).end()
        if text.startswith(",", pos):
            pos += 1
            continue
        if text.startswith(")", pos):
            return Shape("tuple", tuple_shapes=tuple(elements)), pos + 1
        raise DecodeError("expected ',' or ')' in tuple shape", pos)


def _expect(text: str, pos: int, token: str) -> int:
    pos = _match_ws(text, pos).end()
    if not text.startswith(token, pos):
        raise DecodeError(f"expected {token!r} in layout", pos)
    return pos + len(token)


def _int_at(text: str, pos: int) -> tuple[int, int]:
    pos = _match_ws(text, pos).end()
    m = _INT_RE.match(text, pos)
    if m is None:
        raise DecodeError("expected an integer in layout", pos)
    return int(m.group()), m.end()


def _paren_ints(
    text: str, pos: int, allow_star: bool = False
) -> tuple[tuple[int | None, ...], int]:
    pos = _expect(text, pos, "(")
    values: list[int | None] = []
    pos = _match_ws(text, pos).end()
    if text.startswith(")", pos):
        return (), pos + 1
    while True:
        pos = _match_ws(text, pos).end()
        if allow_star and text.startswith("*", pos):
            values.append(None)
            pos += 1
        else:
            value, pos = _int_at(text, pos)
            values.append(value)
        pos = _match_ws(text, pos).end()
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
    pos = _match_ws(text, pos).end()
    while pos < len(text) and (text[pos].isdigit()):
        value, pos = _int_at(text, pos)
        minor_to_major.append(value)
        pos = _match_ws(text, pos).end()
        if text.startswith(",", pos):
            pos = _match_ws(text, pos + 1).end()
    fields: dict = {}
    if text.startswith(":", pos):
        fields, pos = _layout_fields(text, pos + 1)
    pos = _expect(text, pos, "}")
    return Layout(tuple(minor_to_major), **fields), pos


def _layout_fields(text: str, pos: int) -> tuple[dict, int]:
    """The fields after a layout's ``:`` (tiles, memory space, ...), as :class:`Layout`'s
    keyword arguments, and the position of the closing ``}``."""
    fields: dict = {}
    while True:
        pos = _match_ws(text, pos).end()
        if text.startswith("}", pos):
            break
        if text.startswith("SC", pos):
            fields["split_configs"], pos = _split_configs_at(text, pos + 2)
        elif text.startswith("D(", pos):
            inside, pos = _paren_text(text, pos, "D(...)")
            fields["dim_level_types"] = tuple(p.strip() for p in inside.split(",") if p.strip())
        elif text.startswith("T", pos):
            pos += 1
            tiles = []
            while text.startswith("(", _match_ws(text, pos).end()):
                tile, pos = _paren_ints(text, pos, allow_star=True)
                tiles.append(tile)
            fields["tiles"] = tuple(tiles)
        elif text.startswith("L", pos):
            value, pos = _one_int(text, pos + 1)
            fields["tail_padding_alignment"] = value
        elif text.startswith("#(", pos) or text.startswith("*(", pos):
            key = "index_primitive_type" if text[pos] == "#" else "pointer_primitive_type"
            inside, pos = _paren_text(text, pos, "type")
            fields[key] = inside.strip()
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
    return fields, pos


def _paren_text(text: str, pos: int, what: str) -> tuple[str, int]:
    """The text inside the parentheses of a one-letter layout field at ``pos`` (``D(...)``)
    and the position after them."""
    close = text.find(")", pos)
    if close < 0:
        raise DecodeError(f"unterminated {what} in layout", pos)
    return text[pos + 2 : close], close + 1


def _split_configs_at(text: str, pos: int) -> tuple[tuple[tuple[int, tuple[int, ...]], ...], int]:
    """``(dim:i,j)(dim:k)``: a layout's split configs, read after ``SC``."""
    configs = []
    while text.startswith("(", pos):
        dim, pos = _int_at(text, pos + 1)
        pos = _expect(text, pos, ":")
        idx: list[int] = []
        while True:
            pos = _match_ws(text, pos).end()
            if text.startswith(")", pos):
                pos += 1
                break
            value, pos = _int_at(text, pos)
            idx.append(value)
            pos = _match_ws(text, pos).end()
            if text.startswith(",", pos):
                pos += 1
        configs.append((dim, tuple(idx)))
    return tuple(configs), pos

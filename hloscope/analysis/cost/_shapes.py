"""Bytes and element counts of shapes as XLA's CPU backend counts them, and the one cache of
them that the rules share."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ...hlo.shape import parse_shape

if TYPE_CHECKING:  # pragma: no cover
    from ...hlo.model import Instruction
    from ...hlo.shape import Shape

POINTER_SIZE = 8  # bytes per tuple element (XLA's tuple index table on CPU)


def shape_size(shape: Shape) -> int:
    """Bytes XLA's CPU backend sizes a shape at (``CpuExecutable::ShapeSizeBytes``).

    Arrays: their data (sub-byte types one byte per element unless the layout packs them with
    ``E(n)``), plus 4 bytes per dimension for a dynamic shape's size metadata. Tuples: their
    pointer table, 8 bytes per element (not the elements). Tokens: 0. Opaque: one pointer.
    """
    if shape.is_tuple:
        return POINTER_SIZE * len(shape.tuple_shapes)
    if shape.is_buffer:
        return shape_size(shape.tuple_shapes[0]) if shape.tuple_shapes else 0
    kind = shape.dtype.kind
    if kind == "token":
        return 0
    if kind == "opaque":
        return POINTER_SIZE
    size = shape.byte_size or 0
    if any(shape.dynamic_dims):
        size += 4 * len(shape.dims)
    return size


# What the rules ask of an instruction's shape, keyed by the shape as written: a deep model
# writes the same few hundred shapes on hundreds of thousands of instructions, and parsing
# one into a Shape costs far more than a dict lookup. An instruction whose text leaves its
# shape out (the shape inferred) has no key and is measured on its own. The cache outlives
# modules (a shape's sizes do not depend on the module), so it is bounded: past
# SHAPE_CACHE_LIMIT entries the oldest goes, which costs nothing on a hit.
SHAPE_CACHE_LIMIT = 1 << 16
_SIZE, _WRITTEN, _ELEMENTS = 0, 1, 2  # the fields of a cached entry
_shape_cache: dict[str, tuple[int, int, int]] = {}


def _measured(inst: Instruction) -> tuple[int, int, int]:
    """``inst``'s (size, bytes written by default, elements), kept in the shape cache."""
    entry = _measures(inst.shape)
    text = inst.shape_text
    if text:
        _keep(text, entry)
    return entry


def measured_text(text: str) -> tuple[int, int, int]:
    """(size, bytes written by default, elements) of the shape written ``text``, from the
    shape cache (what an instruction of that shape text measures; raises the shape parser's
    DecodeError for text that is no shape)."""
    entry = _shape_cache.get(text)
    if entry is None:
        entry = _keep(text, _measures(parse_shape(text)))
    return entry


def _measures(shape: Shape) -> tuple[int, int, int]:
    size = shape_size(shape)
    if shape.is_tuple:
        written = sum(shape_size(leaf) for leaf in shape.leaves() if not leaf.is_tuple)
    else:
        written = size
    return (size, written, _elements(shape))


def _keep(text: str, entry: tuple[int, int, int]) -> tuple[int, int, int]:
    if len(_shape_cache) >= SHAPE_CACHE_LIMIT:
        del _shape_cache[next(iter(_shape_cache))]  # dicts keep insertion order
    _shape_cache[text] = entry
    return entry


def _size_of(inst: Instruction) -> int:
    """:func:`shape_size` of ``inst``'s shape."""
    entry = _shape_cache.get(inst.shape_text)
    return (entry or _measured(inst))[_SIZE]


def _output_size_of(inst: Instruction) -> int:
    """Bytes an instruction writes by default: a tuple result counts its array leaves."""
    entry = _shape_cache.get(inst.shape_text)
    return (entry or _measured(inst))[_WRITTEN]


def _elements_of(inst: Instruction) -> int:
    """:func:`_elements` of ``inst``'s shape."""
    entry = _shape_cache.get(inst.shape_text)
    return (entry or _measured(inst))[_ELEMENTS]


def _elements(shape: Shape) -> int:
    """``ShapeUtil::ElementsIn`` for an array (unknown ``?`` dimensions count as 0)."""
    n = shape.element_count
    return n or 0


def _prod(values: Iterable[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def _array_subshapes(shape: Shape) -> list[Shape]:
    """The arrays of ``shape``, depth first (a tuple's elements in order)."""
    return [leaf for _, leaf in _leaves(shape) if leaf.is_array]


def _leaf_indices(shape: Shape) -> list[tuple[int, ...]]:
    """The shape index of each non-tuple leaf of ``shape``, depth first (``[()]`` for an
    array)."""
    return [index for index, _ in _leaves(shape)]


def _leaves(shape: Shape) -> list[tuple[tuple[int, ...], Shape]]:
    # An explicit stack (elements pushed in reverse, so popped in order): tuples nest as
    # deeply as the text does.
    out: list[tuple[tuple[int, ...], Shape]] = []
    stack: list[tuple[tuple[int, ...], Shape]] = [((), shape)]
    while stack:
        index, sub = stack.pop()
        if sub.is_tuple:
            elements = sub.tuple_shapes
            stack.extend((index + (i,), elements[i]) for i in range(len(elements) - 1, -1, -1))
        else:
            out.append((index, sub))
    return out

"""How many bytes an array really takes on a TPU, where memory is laid out in tiles.

A TPU stores an array in fixed-size tiles over its minor (fastest-varying) dimensions, and a
dimension that does not fill its last tile is padded up to it. XLA prints the tiling after the
layout's dimension order: ``f32[128,6]{1,0:T(8,128)}`` is kept in 8x128 tiles, so its six
columns take 128 and the array takes 64 KiB for 3 KiB of data. A small or odd minor
dimension can multiply an array's size; XLA's own out-of-memory report on TPU says so
("Extra memory due to padding: ... (21.3x expansion)").

The rule (XLA's "Tiled layout" document, openxla.org/xla/tiled_layout, and the layouts TPU
dumps print):

* the first tile of the layout decides the padding. It covers a suffix of the *physical*
  dimensions (the layout's order, major to minor), each padded up to a multiple of its tile
  size; the further tiles (``(2,1)`` packing two bf16 rows into one 32-bit word, ``(128)``)
  only reorder elements inside the first tile, so they add nothing. A tile with more
  dimensions than the array treats the array as having leading dimensions of size 1.
* an explicit ``T(...)`` in the layout is always honoured (an optimized TPU module prints
  one on every array);
* without one, the chip's tile (its device row's ``tile``, ``(8,128)`` on every TPU the
  registry knows; the default TPU's when no chip is named) for 32-bit types on arrays of rank
  2 or more, as many rows more as a narrower type packs into a 32-bit word: ``(16,128)`` for
  16-bit, ``(32,128)`` for 8-bit (and sub-byte types, stored one per byte); rank-1 arrays get
  a one-dimensional tile, ``T(256)`` below 1024 elements and ``T(1024)`` from there (what
  TPU dumps print: ``f32[100]{0:T(256)}``, ``s32[2048]{0:T(1024)}``); scalars are left as
  they are.

Only text is read here: a module from a CPU machine can be sized for a TPU.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from ...devices import DEFAULT_TILE, Device
from ...hlo.shape import Shape

__all__ = [
    "TileSource",
    "PaddedSize",
    "LANES",
    "INFLATION_THRESHOLD",
    "chip_tile",
    "default_tile",
    "padded_size",
    "padded_bytes",
    "InflatedArray",
    "inflated_arrays",
]

#: The minor tile dimension of the default TPU's array tiles: the lanes of a vector register
#: (a chip's own is its device row's ``tile[1]``).
LANES = DEFAULT_TILE[1]
#: Padding that grows an array by more than this fraction of its data is worth reporting.
INFLATION_THRESHOLD = 0.25
# Rank-1 arrays: the short and the long one-dimensional tile, and where the long one starts.
_RANK1_SHORT, _RANK1_LONG = 256, 1024


class TileSource(StrEnum):
    """Where the tile used for an array came from."""

    #: The layout printed a ``T(...)`` tiling.
    LAYOUT = "layout"
    #: No tiling was printed: the TPU default for the element type and rank.
    DEFAULT = "default"
    #: A scalar without a printed tiling: nothing to pad.
    NONE = "none"


@dataclass(frozen=True, slots=True)
class PaddedSize:
    """An array's size as data (``logical_bytes``) and as stored in TPU tiles
    (``padded_bytes``), with the tile that decided it."""

    logical_bytes: int
    padded_bytes: int
    tile: tuple[int, ...]
    tile_source: TileSource

    @property
    def extra_bytes(self) -> int:
        """Bytes of padding."""
        return self.padded_bytes - self.logical_bytes

    @property
    def expansion(self) -> float:
        """``padded_bytes / logical_bytes`` (1.0 for an empty array)."""
        return self.padded_bytes / self.logical_bytes if self.logical_bytes else 1.0


def _storage_bits(shape: Shape) -> int:
    """Bits one element occupies in memory: ``E(n)`` when the layout packs it, else whole
    bytes (sub-byte types and ``pred`` take one byte each)."""
    if shape.layout is not None and shape.layout.element_size_in_bits:
        return shape.layout.element_size_in_bits
    return shape.dtype.storage_bytes * 8


def chip_tile(device: Device | None = None) -> tuple[int, int]:
    """The (sublanes, lanes) tile of a 32-bit array on ``device``: its row's ``tile``, the
    default TPU's when no device is named or its row states none."""
    if device is not None and device.tile is not None:
        return device.tile
    return DEFAULT_TILE


def default_tile(shape: Shape, device: Device | None = None) -> tuple[int, ...]:
    """The tile ``device`` (a TPU's row; the default TPU's when ``None``) uses for an array
    whose layout prints none (see the module docstring): ``()`` for a scalar."""
    if shape.rank == 0:
        return ()
    if shape.rank == 1:
        count = shape.dims[0] or 0
        return (_RANK1_LONG,) if count >= _RANK1_LONG else (_RANK1_SHORT,)
    rows, lanes = chip_tile(device)
    bits = min(32, max(8, shape.dtype.storage_bytes * 8))
    return (rows * 32 // bits, lanes)


def _first_tile(shape: Shape, device: Device | None) -> tuple[tuple[int | None, ...], TileSource]:
    if shape.layout is not None and shape.layout.tiles:
        return shape.layout.tiles[0], TileSource.LAYOUT
    tile = default_tile(shape, device)
    return tile, TileSource.DEFAULT if tile else TileSource.NONE


def padded_size(shape: Shape, device: Device | None = None) -> PaddedSize | None:
    """The logical and the tile-padded bytes of one array shape on ``device`` (a TPU's row,
    whose tile pads an array without a printed one; the default TPU when ``None``); ``None``
    for a tuple, a token or an array with an unbounded (``?``) dimension. Bounded dynamic
    dimensions (``<=N``) count at their bound, as XLA allocates them."""
    if shape.is_tuple or shape.is_buffer or not shape.dtype.is_array_type:
        return None
    logical = shape.byte_size
    if logical is None or any(d is None for d in shape.dims):
        return None
    tile, source = _first_tile(shape, device)
    physical = [shape.dims[axis] or 0 for axis in reversed(shape.minor_to_major)]
    if len(tile) > len(physical):
        physical = [1] * (len(tile) - len(physical)) + physical
    tail = len(physical) - len(tile)
    for k, size in enumerate(tile):
        if size:  # a `*` in a tile (None) combines dimensions rather than padding one
            physical[tail + k] = math.ceil(physical[tail + k] / size) * size
    padded = (math.prod(physical) * _storage_bits(shape) + 7) // 8
    return PaddedSize(logical, max(padded, logical), tuple(t or 0 for t in tile), source)


def padded_bytes(shape: Shape, device: Device | None = None) -> int | None:
    """Tile-padded bytes of a shape on ``device`` (as :func:`padded_size`), the leaves of a
    tuple summed; ``None`` when an array of it has an unbounded dimension."""
    total = 0
    for leaf in shape.leaves():
        if leaf.is_tuple or leaf.is_buffer or not leaf.dtype.is_array_type:
            continue
        size = padded_size(leaf, device)
        if size is None:
            return None
        total += size.padded_bytes
    return total


@dataclass(frozen=True, slots=True)
class InflatedArray:
    """An array that tile padding grows by more than the threshold."""

    name: str
    shape: str
    size: PaddedSize


def inflated_arrays(
    arrays: Iterable[tuple[str, Shape]],
    threshold: float = INFLATION_THRESHOLD,
    device: Device | None = None,
) -> list[InflatedArray]:
    """The arrays among ``(name, shape)`` pairs whose padded size on ``device`` (as
    :func:`padded_size`) exceeds their logical size by more than ``threshold`` (a fraction:
    0.25 is 25%), most padding bytes first (ties by name). Tuples count by their leaves, each
    named ``name{i}`` by its leaf index."""
    found: list[InflatedArray] = []
    for name, shape in arrays:
        leaves = shape.leaves()
        for index, leaf in enumerate(leaves):
            size = padded_size(leaf, device)
            if size is None or size.extra_bytes <= threshold * size.logical_bytes:
                continue
            label = name if len(leaves) == 1 and leaf is shape else f"{name}{{{index}}}"
            found.append(InflatedArray(label, leaf.to_text(), size))
    found.sort(key=lambda item: (-item.size.extra_bytes, item.name))
    return found

"""What XLA:TPU's layouts say about an array: where it lives and how big its buffer is.

A module XLA:TPU optimized prints each array's layout in full: the order of the dimensions
(minor to major), the tiles the data is stored in, and the memory space when it is not HBM::

    f32[65536,6]{0,1:T(8,128)}              HBM, dimension 0 minor, tiles of 8 x 128
    bf16[1024,256]{1,0:T(8,128)(2,1)S(1)}   on-chip vector memory (VMEM)
    s32[]{:S(2)}                            on-chip scalar memory (SMEM): a sync flag

Tiling follows XLA's ``Layout`` rules: the dimensions are put in physical order (major to
minor), the first tile covers the minor-most dimensions (a shape of lower rank than the tile
is padded with leading 1s), each of them rounded up to a multiple of the tile's, and each
further tile (``(2,1)`` packs two bf16 rows in one 32-bit word) applies the same way to the
tile before it. The buffer is the product of the padded dimensions times the element size:
``f32[65536,6]{0,1:T(8,128)}`` is 6 rows of 65536 in physical order, padded to 8 x 65536
(2 MiB), where a row-major guess would pad the 6 to 128. XLA:TPU's buffer assignment sizes
buffers exactly so (tests compare with its ``buffer-assignment`` report).

A module is a *TPU module* when any of its layouts has tiles or a memory space: CPU modules
print neither, so their analyses keep their own rules.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .model import Module
    from .shape import Shape

__all__ = [
    "MemorySpace",
    "memory_space",
    "is_hbm",
    "tiled_dims",
    "tiled_byte_size",
    "has_tiles",
    "module_has_tpu_layouts",
]


class MemorySpace(IntEnum):
    """The memory spaces XLA:TPU's layouts name (``S(n)``; no ``S`` is HBM)."""

    HBM = 0
    VMEM = 1  # the on-chip vector memory next to the cores
    SMEM = 2  # the on-chip scalar memory (sync flags, scalars)


def memory_space(shape: Shape) -> int:
    """The memory space of an array shape (0, HBM, when its layout names none)."""
    layout = shape.layout
    return layout.memory_space if layout is not None else 0


def is_hbm(shape: Shape) -> bool:
    """Whether an array lives in device memory (HBM), not on chip (``S(1)``, ``S(2)``)."""
    return memory_space(shape) == MemorySpace.HBM


def has_tiles(shape: Shape) -> bool:
    """Whether an array's layout prints tiles (``T(...)``): XLA:TPU chose its storage."""
    layout = shape.layout
    return layout is not None and bool(layout.tiles)


def tiled_dims(shape: Shape) -> tuple[int, ...] | None:
    """The array's dimensions in physical order (major to minor) padded to its first tile,
    or ``None`` when its layout has no tiles or a dimension is unknown.

    ``f32[65536,6]{0,1:T(8,128)}`` gives ``(8, 65536)``: dimension 1 (the 6) is major and is
    padded to 8 rows; dimension 0 is minor and already a multiple of 128.
    """
    layout = shape.layout
    if layout is None or not layout.tiles or any(d is None for d in shape.dims):
        return None
    order = layout.minor_to_major or tuple(range(len(shape.dims) - 1, -1, -1))
    physical = [int(shape.dims[d]) for d in reversed(order)]  # type: ignore[arg-type]
    return tuple(_pad_to_tile(physical, layout.tiles[0]))


def tiled_byte_size(shape: Shape) -> int | None:
    """Bytes of an array's buffer under its tiled layout (see the module docstring), or
    ``None`` when the layout has no tiles (then :attr:`Shape.byte_size` is the size)."""
    layout = shape.layout
    dims = tiled_dims(shape)
    if layout is None or dims is None:
        return None
    tile = [d or 1 for d in layout.tiles[0]]
    count = _product(dims)
    for inner in layout.tiles[1:]:  # sub-tiles: applied to each tile, padding it further
        padded = _pad_to_tile(tile, inner)
        count = count // max(_product(tile), 1) * _product(padded)
        tile = padded
    bits = layout.element_size_in_bits or shape.dtype.storage_bytes * 8
    return (count * bits + 7) // 8


def _pad_to_tile(dims: list[int], tile: tuple[int | None, ...]) -> list[int]:
    """``dims`` (major to minor) with the minor ``len(tile)`` rounded up to the tile's
    dimensions (leading 1s added when there are fewer; a ``*`` tile dimension pads nothing)."""
    dims = [1] * max(0, len(tile) - len(dims)) + list(dims)
    head, tail = dims[: len(dims) - len(tile)], dims[len(dims) - len(tile) :]
    padded = [-(-d // t) * t if t else d for d, t in zip(tail, tile)]
    return head + padded


def _product(values: list[int] | tuple[int, ...]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def module_has_tpu_layouts(module: Module) -> bool:
    """Whether any array of ``module`` prints tiles or a memory space: XLA:TPU made it."""
    for inst in module.instructions():
        for leaf in inst.shape.leaves():
            layout = leaf.layout
            if layout is not None and (layout.tiles or layout.memory_space):
                return True
    return False

"""What XLA:TPU's layouts say about an array: which memory it lives in.

A module XLA:TPU optimized prints each array's layout in full: the order of the dimensions
(minor to major), the tiles the data is stored in, and the memory space when it is not HBM::

    f32[65536,6]{0,1:T(8,128)}              HBM, dimension 0 minor, tiles of 8 x 128
    bf16[1024,256]{1,0:T(8,128)(2,1)S(1)}   on-chip vector memory (VMEM)
    s32[]{:S(2)}                            on-chip scalar memory (SMEM): a sync flag

How tiles pad an array (``f32[65536,6]{0,1:T(8,128)}`` is 8 x 65536 in physical order, not
6 padded to 128) is :mod:`hloscope.analysis.memory.tpu_padding`'s business.

A module is a *TPU module* when any of its layouts has tiles or a memory space: CPU modules
print neither, so their analyses keep their own rules.
"""

from __future__ import annotations

import operator
from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .model import Module
    from .shape import Shape

__all__ = [
    "MemorySpace",
    "memory_space",
    "is_hbm",
    "has_tiles",
    "module_has_tpu_layouts",
]


_HOLDS_COLON = operator.methodcaller("shape_texts_hold", ":")


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


def module_has_tpu_layouts(module: Module) -> bool:
    """Whether any array of ``module`` prints tiles or a memory space: XLA:TPU made it.

    Both sit after a ':' in a layout (``{1,0:T(8,128)S(1)}``): a module none of whose shape
    texts holds a ':' has neither, which the texts tell without building or decoding any
    instruction (a CPU module of 400k instructions spent a second here)."""
    if not any(map(_HOLDS_COLON, module.computations)):
        return False
    for inst in module.instructions():
        for leaf in inst.shape.leaves():
            layout = leaf.layout
            if layout is not None and (layout.tiles or layout.memory_space):
                return True
    return False

"""How one buffer is named and sized in a memory report: the argument an entry parameter
belongs to, whether a shape is on-chip, and an array's bytes at its TPU tile size.

These sit below the result, the savings and the fill so that each can ask them without
importing the others back.
"""

from __future__ import annotations

import re

from ...hlo.errors import HloParseError
from ...hlo.shape import parse_shape
from .tpu_padding import padded_size

# A TPU buffer in an on-chip memory space: `S(1)` (VMEM) or `S(2)` (SMEM). HBM prints none.
_ON_CHIP = re.compile(r"S\([1-9]\d*\)")
# The first part of a JAX argument path: `params` of `params['blocks'][0]`, `m` of `m[3]`.
_FIRST_PART = re.compile(r"^([^\[\].]+)")


def on_chip(shape: str) -> bool:
    """Whether a buffer's shape puts it in on-chip memory (not in HBM)."""
    return bool(_ON_CHIP.search(shape))


def argument_label(op_name: str, name: str, number: int | None = None) -> str:
    """The argument an entry parameter belongs to: the first part of the path JAX gives it
    as its op_name (``params['blocks'][0]['w1']`` -> ``params``), else the parameter's own
    name and number."""
    found = _FIRST_PART.match(op_name.strip()) if op_name else None
    if found is not None:
        return found.group(1)
    return f"parameter {number}" if number is not None else name


def buffer_bytes(shape_text: str) -> int:
    """An array's bytes, at its TPU tile size when its layout has tiles."""
    try:
        shape = parse_shape(shape_text)
    except (HloParseError, ValueError):
        return 0
    if shape.is_tuple:
        return 0
    padded = padded_size(shape) if ":T(" in shape_text else None
    return padded.padded_bytes if padded is not None else shape.byte_size or 0

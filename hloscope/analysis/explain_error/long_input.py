"""One input far longer than the rest: the out-of-memory that a length outlier causes.

A batch of text or proteins padded to its longest member, one image far larger than the others:
the arrays the program makes for that input have one length (a sequence axis, or two of them
for attention scores) many times the length the same arrays have elsewhere in the log. A
smaller batch barely helps; capping that input's length (truncate, split into windows) or
bucketing inputs by length (pad to a few fixed lengths, one compile each) does.

:func:`long_input` finds it from shapes alone: the failing (largest) array's shape ``T`` and
the other shapes the log prints. A length ``L`` of ``T`` is an outlier when another shape is
``T`` with *every* axis of length ``L`` replaced by one shorter length ``l`` (``L >= 8 l``) and
every other axis equal -- ``f32[1,32768,4096]`` beside ``f32[1,512,4096]``, or the scores
``f32[1,32,32768,32768]`` beside ``f32[1,32,512,512]``. Requiring all of ``L``'s axes to change
together keeps the model width (``4096`` in both) from reading as a length.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["LongInput", "SHAPE", "long_input", "shapes_in"]

#: An XLA shape: ``f32[1,32768,4096]`` (the layout after it is not needed).
SHAPE = re.compile(r"\b(?P<dtype>pred|bf16|[fsu]\d+|c64|c128)\[(?P<dims>\d+(?:,\d+)*)\]")
# A length this many times the same array's length elsewhere is an outlier.
_FAR_LONGER = 8
_ITEMSIZE = {"pred": 1, "bf16": 2, "c64": 8, "c128": 16}


@dataclass(frozen=True, slots=True)
class LongInput:
    """The outlier: the array's ``shape``, the ``axes`` of length ``length`` that are
    ``typical`` elsewhere, the array's bytes, and the bytes capping them to ``typical`` frees."""

    shape: str
    axes: tuple[int, ...]
    length: int
    typical: int
    bytes: int
    frees: int

    @property
    def ratio(self) -> int:
        return self.length // self.typical


def _parse(shape: str) -> tuple[str, tuple[int, ...]] | None:
    found = SHAPE.search(shape)
    if found is None:
        return None
    return found["dtype"], tuple(int(d) for d in found["dims"].split(","))


def _nbytes(dtype: str, dims: tuple[int, ...]) -> int:
    size = _ITEMSIZE.get(dtype) or max(1, int(re.sub(r"\D", "", dtype) or 32) // 8)
    return math.prod(dims) * size


def _typical(target: tuple[int, ...], other: tuple[int, ...], length: int) -> int | None:
    """The length ``other`` has where ``target`` has ``length``, if ``other`` is ``target``
    with exactly those axes shortened to one length."""
    if len(other) != len(target):
        return None
    replaced = {o for t, o in zip(target, other) if t == length}
    if len(replaced) != 1 or any(t != o for t, o in zip(target, other) if t != length):
        return None
    (short,) = replaced
    return short if short * _FAR_LONGER <= length else None


def long_input(target: str, others: Iterable[str]) -> LongInput | None:
    """The length outlier of ``target`` among ``others`` (shapes as XLA prints them), or
    ``None``. Of several, the longest; its typical length is the longest seen elsewhere."""
    parsed = _parse(target)
    if parsed is None:
        return None
    dtype, dims = parsed
    shapes = [p[1] for p in map(_parse, others) if p is not None]
    for length in sorted(set(dims), reverse=True):
        typical = [t for other in shapes if (t := _typical(dims, other, length)) is not None]
        if not typical:
            continue
        short = max(typical)
        axes = tuple(i for i, d in enumerate(dims) if d == length)
        total = _nbytes(dtype, dims)
        frees = total - total * short ** len(axes) // length ** len(axes)
        name = f"{dtype}[{','.join(map(str, dims))}]"
        return LongInput(name, axes, length, short, total, frees)
    return None


def shapes_in(text: str) -> list[str]:
    """Every distinct shape ``text`` prints, in order."""
    return list(dict.fromkeys(found[0] for found in SHAPE.finditer(text)))

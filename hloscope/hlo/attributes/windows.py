"""Windows and index ranges: ``window=``, convolution ``dim_labels=``, ``padding=``, ``slice=``.

These are the attributes cost models read on every convolution, reduce-window, pad and slice,
so the flat forms are read with one regular expression each.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ...derived import Derived
from .. import _lex
from ..errors import DecodeError
from ._grammar import ValueCursor, parse_or_raise

__all__ = [
    "WindowDimension",
    "Window",
    "ConvDimLabels",
    "PaddingDimension",
    "PaddingConfig",
    "SliceRange",
]

_T = TypeVar("_T")


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


class _EachDimension(Derived["Window", tuple[_T, ...]]):
    """One field of a window, read off each of its dimensions."""

    __slots__ = ("read",)

    def __init__(self, read: Callable[[WindowDimension], _T]) -> None:
        self.read = read

    def of(self, obj: Window) -> tuple[_T, ...]:
        return tuple(self.read(d) for d in obj.dimensions)


@dataclass(frozen=True, slots=True)
class Window:
    """A convolution / reduce-window window: ``{size=3x3 stride=2x2 pad=0_1x0_1}``.

    Fields left out of the text take their defaults (stride 1, no padding, no dilation).
    """

    dimensions: tuple[WindowDimension, ...] = ()

    #: One figure of every dimension, in dimension order, as the text's fields list them.
    size = _EachDimension(lambda d: d.size)
    stride = _EachDimension(lambda d: d.stride)
    padding = _EachDimension(lambda d: (d.padding_low, d.padding_high))
    lhs_dilate = _EachDimension(lambda d: d.base_dilation)
    rhs_dilate = _EachDimension(lambda d: d.window_dilation)
    rhs_reversal = _EachDimension(lambda d: d.window_reversal)

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


class _LabelPosition(Derived["ConvDimLabels", int]):
    """A dimension of one convolution operand: where its label character stands."""

    __slots__ = ("operand", "label")

    def __init__(self, operand: str, label: str) -> None:
        self.operand = operand
        self.label = label

    def of(self, obj: ConvDimLabels) -> int:
        return str(getattr(obj, self.operand)).index(self.label)


class _SpatialPositions(Derived["ConvDimLabels", tuple[int, ...]]):
    """One convolution operand's spatial dimensions: where the digits 0, 1, ... stand."""

    __slots__ = ("operand",)

    def __init__(self, operand: str) -> None:
        self.operand = operand

    def of(self, obj: ConvDimLabels) -> tuple[int, ...]:
        text = str(getattr(obj, self.operand))
        return tuple(text.index(str(k)) for k in range(obj.num_spatial_dimensions))


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

    #: Each operand's batch and feature dimensions, and its spatial ones in order (XLA's
    #: ConvolutionDimensionNumbers), read off its labels.
    input_batch_dimension = _LabelPosition("input", "b")
    input_feature_dimension = _LabelPosition("input", "f")
    input_spatial_dimensions = _SpatialPositions("input")
    kernel_input_feature_dimension = _LabelPosition("kernel", "i")
    kernel_output_feature_dimension = _LabelPosition("kernel", "o")
    kernel_spatial_dimensions = _SpatialPositions("kernel")
    output_batch_dimension = _LabelPosition("output", "b")
    output_feature_dimension = _LabelPosition("output", "f")
    output_spatial_dimensions = _SpatialPositions("output")

    def __str__(self) -> str:
        return f"{self.input}_{self.kernel}->{self.output}"


@dataclass(frozen=True, slots=True)
class PaddingDimension:
    """Padding of one dimension of ``pad``: ``lo``/``hi`` edges (negative crops) and interior."""

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


# --- decoders -----------------------------------------------------------------------------

_WINDOW_ITEM = re.compile(r"(?:\s|,)*([a-z_]+)=(-?\d+(?:_-?\d+)*(?:x-?\d+(?:_-?\d+)*)*)(?=[\s,}])")
_WINDOW_FIELDS = ("size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal")


def decode_window(raw: str, opcode: str | None) -> Window:
    fields = _window_fields(raw)
    if not fields:
        return Window(())
    if "size" not in fields:
        raise DecodeError("window needs size=", 0)
    columns = _window_columns(fields)
    n = len(columns["size"])
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


def _window_fields(raw: str) -> dict[str, tuple[str, int]]:
    """``{size=3x3 stride=2x2 ...}`` as field -> (its value's text, where that starts)."""
    if not raw.startswith("{"):
        raise DecodeError("expected '{' to start a window", 0)
    fields: dict[str, tuple[str, int]] = {}
    pos = 1
    while True:
        pos = _lex.skip_ws(raw, pos)
        if raw.startswith("}", pos):
            break
        m = _WINDOW_ITEM.match(raw, pos)
        if m is None:
            raise DecodeError(f"bad window field {raw[pos : pos + 16]!r}", pos)
        key = m.group(1)
        if key not in _WINDOW_FIELDS:
            raise DecodeError(f"unknown window field {key!r}", m.start(1))
        if key in fields:
            raise DecodeError(f"window field {key!r} given twice", m.start(1))
        fields[key] = (m.group(2), m.start(2))
        pos = m.end()
    if _lex.skip_ws(raw, pos + 1) != len(raw):
        raise DecodeError("unexpected text after window", pos + 1)
    return fields


def _window_columns(fields: dict[str, tuple[str, int]]) -> dict[str, list]:
    """Each field's value per dimension (``pad``: ``(lo, hi)`` pairs), all of one rank."""
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
    return columns


_DIM_LABELS_RE = re.compile(r"([0-9bf?]{2,})_([0-9io?]{2,})->([0-9bf?]{2,})")


def decode_dim_labels(raw: str, opcode: str | None) -> ConvDimLabels:
    m = _DIM_LABELS_RE.fullmatch(raw)
    if m is None:
        raise DecodeError(f"expected dim labels like b01f_01io->b01f, found {raw[:24]!r}", 0)
    return ConvDimLabels(*m.groups())


_PAD_RE = re.compile(r"-?\d+_-?\d+(?:_-?\d+)?(?:x-?\d+_-?\d+(?:_-?\d+)?)*")


def decode_padding(raw: str, opcode: str | None) -> PaddingConfig:
    if _PAD_RE.fullmatch(raw) is None:
        raise DecodeError(f"expected padding like 0_0x1_1, found {raw[:24]!r}", 0)
    dims = []
    for item in raw.split("x"):
        parts = [int(p) for p in item.split("_")]
        dims.append(PaddingDimension(*parts))
    return PaddingConfig(tuple(dims))


_SLICE_ITEM = re.compile(r"\[\s*(-?\d+)\s*:\s*(-?\d+)\s*(?::\s*(-?\d+)\s*)?\]")


def decode_slice(raw: str, opcode: str | None) -> tuple[SliceRange, ...]:
    def parse(c: ValueCursor) -> tuple[SliceRange, ...]:
        def one() -> SliceRange:
            m = c.match(_SLICE_ITEM, "[start:limit] or [start:limit:stride]")
            start, limit, stride = m.groups()
            return SliceRange(int(start), int(limit), int(stride) if stride else 1)

        return tuple(c.comma_list("{", "}", one))

    return parse_or_raise(parse, raw)

"""Convolution FLOPs: how many window positions of a convolution read real input.

XLA's ``HandleConvolution`` loops over every (output position, kernel position) pair of each
spatial dimension and counts those that land on input rather than on padding or on a hole of
a dilation. :func:`valid_window_positions` counts the same pairs with arithmetic (an
arithmetic progression's members inside an interval), so that a window of a million
positions costs a division per position, not a loop over the product.
"""

from __future__ import annotations

from collections.abc import Callable
from math import gcd
from typing import TYPE_CHECKING

from ...hlo.attributes import ConvDimLabels, WindowDimension
from ._results import FMA_FLOPS, _Malformed

if TYPE_CHECKING:  # pragma: no cover
    from ...hlo.model import Instruction

# A convolution or reduce-window without a window reads one position per output element.
_NO_WINDOW: tuple[WindowDimension, ...] = (WindowDimension(size=1),)


def _window(inst: Instruction) -> tuple[WindowDimension, ...]:
    """The dimensions of ``window={...}`` (``()`` when the attribute is absent)."""
    window = inst.attrs.get("window")
    return window.dimensions if window is not None else ()


def convolution_flops(inst: Instruction) -> int:
    """XLA's ``GetConvolutionFlops``: 2 FLOPs per multiply-add over valid window positions.

    ``2 * (input features / feature groups) * output features * (batch / batch groups)``
    times the product over spatial dimensions of :func:`valid_window_positions`. Raises
    ``_Malformed`` when the labels, window and shapes do not fit together.
    """
    labels = inst.attrs.get("dim_labels")
    if labels is None:
        return 0
    if len(inst.operands) < 2:
        raise _Malformed(f"convolution needs two operands, has {len(inst.operands)}")
    lhs_dims = inst.operands[0].shape.dims
    rhs_dims = inst.operands[1].shape.dims
    out_dims = inst.shape.dims
    _check_labels(labels, len(lhs_dims), len(rhs_dims), len(out_dims))
    input_feature = lhs_dims[labels.input_feature_dimension] or 0
    output_feature = out_dims[labels.output_feature_dimension] or 0
    batch = lhs_dims[labels.input_batch_dimension] or 0
    window = _window(inst)
    if not window:
        window, limits = _NO_WINDOW, [(1, 1, 1)]
    else:
        if len(window) != labels.num_spatial_dimensions:
            raise _Malformed(
                f"window has {len(window)} dimensions but dim_labels "
                f"{labels.num_spatial_dimensions} spatial ones"
            )
        # (input, kernel, output) extent of each spatial dimension, in window order.
        spatial = zip(
            labels.input_spatial_dimensions,
            labels.kernel_spatial_dimensions,
            labels.output_spatial_dimensions,
        )
        limits = [(lhs_dims[i] or 0, rhs_dims[k] or 0, out_dims[o] or 0) for i, k, o in spatial]
    positions = 1
    for w, (input_limit, kernel_limit, output_limit) in zip(window, limits):
        positions *= valid_window_positions(w, input_limit, kernel_limit, output_limit)
    feature_groups = inst.attrs.get("feature_group_count", 1)
    batch_groups = inst.attrs.get("batch_group_count", 1)
    if feature_groups < 1 or batch_groups < 1:
        raise _Malformed(f"group counts {feature_groups} and {batch_groups} must be positive")
    fma = (input_feature // feature_groups) * output_feature * (batch // batch_groups) * positions
    return fma * FMA_FLOPS


def _check_labels(labels: ConvDimLabels, lhs_rank: int, rhs_rank: int, out_rank: int) -> None:
    """Raise ``_Malformed`` unless ``dim_labels`` describe operands of these ranks: one label
    per dimension, a batch and a feature dimension, the same spatial digits ``0..n-1`` in
    each (what XLA's verifier checks and its parser does not)."""
    for what, text, rank, needed in (
        ("input", labels.input, lhs_rank, "bf"),
        ("kernel", labels.kernel, rhs_rank, "io"),
        ("output", labels.output, out_rank, "bf"),
    ):
        if len(text) != rank:
            raise _Malformed(f"dim_labels {what} {text!r} for an operand of rank {rank}")
        if any(text.count(ch) != 1 for ch in needed):
            raise _Malformed(f"dim_labels {what} {text!r} needs one each of {needed!r}")
    spatial = "".join(str(k) for k in range(labels.num_spatial_dimensions))
    for text in (labels.input, labels.kernel, labels.output):
        if sorted(ch for ch in text if ch.isdigit()) != sorted(spatial):
            raise _Malformed(f"dim_labels {labels} do not share spatial dimensions 0..")


def valid_window_positions(
    w: WindowDimension, input_limit: int, kernel_limit: int, output_limit: int
) -> int:
    """How many (output position, kernel position) pairs of one spatial dimension read input.

    XLA's convolution handler counts them with a loop over both: the pair ``(o, k)`` reads
    the input at ``u = o * stride - padding_low + k * window_dilation`` in the padded, dilated
    input, which is real data when ``base_dilation`` divides ``u`` and ``u / base_dilation``
    is inside the input (``base_dilation`` is XLA's ``lhs_dilate``, holes in the input;
    ``window_dilation`` its ``rhs_dilate``, holes in the kernel). For a fixed ``k`` the valid
    ``o`` are the members of an arithmetic progression that fall in an interval, which
    :func:`_progression_hits` counts with a division; so this loops over the kernel or the
    output positions, whichever are fewer, not over their product. (XLA's own shortcuts, for
    stride 1 without input dilation and for two degenerate shapes, are special cases.)
    """
    if w.base_dilation >= 1:
        modulus, top = w.base_dilation, w.base_dilation * (input_limit - 1)
    else:
        # XLA tests ``u == (u / d) * d`` with ``u / d`` taken as ``u`` when ``d <= 1``: for a
        # dilation below 1 only ``u = 0`` passes.
        modulus, top = 1, 0 if input_limit >= 1 else -1
    if top < 0 or kernel_limit <= 0 or output_limit <= 0:
        return 0
    if kernel_limit <= output_limit:  # per kernel position: o steps the input by the stride
        outer, step, stride_outer, count = kernel_limit, w.stride, w.window_dilation, output_limit
    else:  # per output position: k steps it by the window dilation
        outer, step, stride_outer, count = output_limit, w.window_dilation, w.stride, kernel_limit
    if outer > _VECTORISE_FROM and step != 0:
        counted = _progression_hits_summed(
            step, count, modulus, top, outer, stride_outer, -w.padding_low
        )
        if counted is not None:
            return counted
    hits = _progression_hits(step, count, modulus, top)
    return sum(hits(i * stride_outer - w.padding_low) for i in range(outer))


#: From how many outer positions :func:`valid_window_positions` counts with numpy: below it
#: the Python loop is cheaper than building arrays, above it the loop's cost per position
#: dominates (a large convolution window visits millions of positions).
_VECTORISE_FROM = 4096
_INT64_SAFE = 2**62


def _progression_hits_summed(
    step: int, count: int, modulus: int, top: int, outer: int, stride_outer: int, base: int
) -> int | None:
    """``sum(hits(base + i * stride_outer) for i in range(outer))`` of
    :func:`_progression_hits`, in numpy; None when a value could leave int64 (the caller then
    loops in Python, where integers do not overflow)."""
    extent = abs(base) + abs(stride_outer) * outer + abs(step) * count + abs(top) + modulus
    if extent * max(abs(step), modulus, 1) >= _INT64_SAFE:
        return None
    import numpy as np

    shift = 0
    if step < 0:  # as in _progression_hits: walk the progression backwards
        step, shift = -step, step * (count - 1)
    g = gcd(step, modulus)
    period = modulus // g
    inverse = pow(step // g, -1, period) if period > 1 else 0
    offset = np.arange(outer, dtype=np.int64) * stride_outer + (base + shift)
    lo = np.maximum(0, -(offset // step))  # numpy's // floors, as Python's does
    hi = np.minimum(count - 1, (top - offset) // step)
    valid = (lo <= hi) & (offset % g == 0)
    first = ((-offset) // g) * inverse % period
    counts = (hi - first) // period - (lo - 1 - first) // period
    return int(counts[valid].sum())


def _progression_hits(step: int, count: int, modulus: int, top: int) -> Callable[[int], int]:
    """``hits(offset)``: how many ``t`` in ``[0, count)`` put ``x = step * t + offset`` in
    ``[0, top]`` with ``modulus`` dividing ``x``. Everything but the offset is fixed, so the
    modular inverse is worked out once."""
    if step == 0:
        return lambda offset: count if 0 <= offset <= top and offset % modulus == 0 else 0
    shift = 0
    if step < 0:  # walk the progression backwards: t -> count - 1 - t
        step, shift = -step, step * (count - 1)
    g = gcd(step, modulus)
    period = modulus // g  # the t that solve step * t = -offset (mod modulus) recur this often
    inverse = pow(step // g, -1, period) if period > 1 else 0
    last = count - 1

    def hits(offset: int) -> int:
        offset += shift
        lo = max(0, -(offset // step))  # the first t with x >= 0: ceil(-offset / step)
        hi = min(last, (top - offset) // step)  # the last t with x <= top
        if lo > hi or offset % g:
            return 0
        first = (-offset // g) * inverse % period  # the solutions are first + period * n
        return (hi - first) // period - (lo - 1 - first) // period

    return hits

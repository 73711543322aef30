"""The cost rules: which opcodes cost what, one rule per opcode, as XLA's ``HloCostAnalysis``.

Every opcode of the table in :mod:`hloscope.hlo.opcodes` is priced by exactly one of:

* :data:`ZERO_COST_OPCODES`: nothing (they name or alias buffers);
* ``_ONE_FLOP_PER_ELEMENT``: one FLOP, or one transcendental for
  :data:`TRANSCENDENTAL_OPCODES`, per output element, and the default bytes;
* ``_DEFAULT_OPCODES``: XLA's default, the bytes of the operands and the result, no FLOPs;
* ``_HANDLERS``: a rule of its own (dot, convolution, reduce, fusion, while...);
* :data:`NO_XLA_RULE_OPCODES`: opcodes the XLA this model follows does not know; they get the
  default bytes too, but on purpose and documented.

tests/test_cost_rules.py fails when an opcode of the table is in none of these (it would get
the default silently) or in two (the second would never be asked).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ...hlo.opcodes import OPCODES
from ...hlo.placement import known_trip_count
from ._mosaic import mosaic_cost, xla_kernel_body
from ._results import FMA_FLOPS, ZERO, Cost, _Malformed, _max_cost
from ._shapes import (
    _array_subshapes,
    _elements,
    _elements_of,
    _output_size_of,
    _prod,
    _size_of,
    shape_size,
)
from ._windows import _window, convolution_flops

# Custom calls that move nothing: XLA:TPU's ConcatBitcast reads its pieces where they lie, and
# AllocateBuffer reserves a buffer a loop will fill (a scan's stacked outputs) without writing
# it: on a TPU v5e its 256 MiB took 0.25 ns, which counted as bytes put it at a million times
# the HBM roof (hloscope.analysis.hbm names the same set for the fusion report).
FREE_CUSTOM_CALL_TARGETS = frozenset({"ConcatBitcast", "AllocateBuffer"})
# The custom calls Pallas kernels become: Mosaic on TPU, Triton and Mosaic GPU on GPUs. Their
# cost is the ``cost_estimate`` given to ``pallas_call``, else unknown to XLA.
PALLAS_TARGETS = frozenset(
    {"tpu_custom_call", "__gpu$xla.gpu.triton", "mosaic_gpu", "mosaic_gpu_v2"}
)
PALLAS_UNKNOWN = "a Pallas kernel given no cost_estimate, cost unknown (boundary bytes, 0 FLOPs)"
PALLAS_ESTIMATED = (
    "a Pallas kernel given no cost_estimate: FLOPs estimated from its jaxpr x its grid, which "
    "XLA does not count (boundary bytes)"
)
# XLA:TPU's own Mosaic kernels (a tpu_custom_call XLA wrote, online-softmax...; _mosaic.py):
# no pallas_call to give an estimate to. Their FLOPs are read from the kernel's Mosaic text.
XLA_KERNEL_ESTIMATED = (
    "an XLA:TPU kernel of its own (not a Pallas kernel): FLOPs estimated from its Mosaic body "
    "x its grid, which XLA does not count (boundary bytes)"
)
XLA_KERNEL_UNKNOWN = "an XLA:TPU kernel of its own (not a Pallas kernel), cost unknown"
# How to give one, for the notes that count such kernels.
PALLAS_ESTIMATE_HINT = (
    "give pallas_call a cost_estimate=pl.CostEstimate(flops=..., transcendentals=..., "
    "bytes_accessed=...) (pl.estimate_cost(reference_fn, *args) computes one from plain JAX "
    "code) and XLA counts the kernel"
)


def unestimated_pallas_kernels(flagged: Iterable[Any]) -> int:
    """How many of the flagged ops (``FlaggedOp`` reasons, or the fusion report's
    ``"module/computation/name: reason"`` lines) are Pallas kernels whose cost is unknown."""
    return sum(PALLAS_UNKNOWN in str(getattr(f, "reason", f)) for f in flagged)


def estimated_pallas_kernels(flagged: Iterable[Any]) -> int:
    """How many of the flagged ops are Pallas kernels whose FLOPs hloscope estimated."""
    return sum(PALLAS_ESTIMATED in str(getattr(f, "reason", f)) for f in flagged)


def estimated_xla_kernels(flagged: Iterable[Any]) -> int:
    """How many of the flagged ops are XLA:TPU's own kernels whose FLOPs hloscope estimated
    from their Mosaic body (their cost is known, as an estimate: not an unknown cost)."""
    return sum(XLA_KERNEL_ESTIMATED in str(getattr(f, "reason", f)) for f in flagged)


if TYPE_CHECKING:  # pragma: no cover
    from ...hlo.model import Computation, Instruction
    from ...hlo.shape import Shape

#: How custom-calls are priced: as a boundary (hloscope's reading) or as XLA does (unknown).
CustomCallRule = Literal["boundary", "xla"]


class _Pricer(Protocol):
    """What a rule asks of the analysis that prices a module (``_analysis._Analysis``): the
    rules sit below it, so they name this shape instead of importing it back."""

    custom_calls: CustomCallRule
    trip_counts: bool

    def computation(self, comp: Computation) -> Cost: ...
    def sub_ops(self, inst: Instruction, index: int = 0) -> Cost: ...
    def default_read(self, inst: Instruction) -> int: ...
    def default(
        self, inst: Instruction, flops: int = 0, trans: int = 0, flag: str = ""
    ) -> Cost: ...
    def fusion(self, inst: Instruction) -> Cost: ...


TRANSCENDENTAL_OPCODES: frozenset[str] = frozenset(
    {
        "exponential",
        "exponential-minus-one",
        "log",
        "log-plus-one",
        "logistic",
        "power",
        "sqrt",
        "cbrt",
        "rsqrt",
        "tanh",
        "sine",
        "cosine",
        "tan",
        "atan2",
        "erf",
        "acos",
        "acosh",
        "asin",
        "asinh",
        "atanh",
        "cosh",
        "sinh",
    }
)

# Instructions that alias or name buffers: no FLOPs and no bytes (XLA's Handle* zero them).
ZERO_COST_OPCODES: frozenset[str] = frozenset(
    {
        "parameter",
        "constant",
        "get-tuple-element",
        "bitcast",
        "domain",
        "after-all",
        "add-dependency",
    }
)

# Elementwise-category opcodes that XLA does not price as one FLOP per element.
_NOT_ELEMENTWISE_FLOPS = frozenset({"map"})

# Opcodes XLA prices at one FLOP (or transcendental) per output element.
_ONE_FLOP_PER_ELEMENT = frozenset(
    op for op, info in OPCODES.items() if info.category == "elementwise"
).difference(_NOT_ELEMENTWISE_FLOPS)

# Opcodes XLA prices with the default rule (bytes of operands and result, no FLOPs).
_DEFAULT_OPCODES = frozenset(
    {
        "copy",
        "reverse",
        "concatenate",
        "pad",
        "reshape",
        "dynamic-reshape",
        "broadcast",
        "iota",
        "get-dimension-size",
        "set-dimension-size",
        "copy-start",
        "copy-done",
        "send",
        "send-done",
        "recv",
        "recv-done",
        "all-gather",
        "all-gather-start",
        "all-gather-done",
        "all-to-all",
        "ragged-all-to-all",
        "reduce-scatter",
        "collective-permute",
        "collective-permute-start",
        "collective-permute-done",
        "collective-broadcast",
        "all-reduce-done",
        "async-update",
        "async-done",
        "partition-id",
        "replica-id",
        "opt-barrier",
        "rng-get-and-update-state",
        "batch-norm-training",
        "batch-norm-inference",
        "batch-norm-grad",
        "topk",
    }
)


# Opcodes of the table that the XLA this model follows (the jaxlib hloscope is checked
# against) has no rule for, because its parser does not know them: "Unknown opcode" is its
# answer (tests/test_cost_rules.py asks it). They cost the default, boundary bytes and no
# FLOPs, without a flag: they are real opcodes, only not priced by XLA.
NO_XLA_RULE_OPCODES: frozenset[str] = frozenset(
    {
        # Only the newest XLA has these (hlo_opcode.h after the jaxlib release): a newer dump
        # may hold them, and there is no XLA rule yet to follow.
        "collective-reduce",
        "shuffle",
        # A legacy opcode older dumps carry; XLA removed it (and its cost handler).
        "trace",
    }
)


# Opcodes whose cost rules ask for the cost of a computation they call.
_CALLING_RULES = frozenset(
    {
        "fusion",
        "while",
        "call",
        "conditional",
        "async-start",
        "reduce",
        "reduce-window",
        "select-and-scatter",
        "scatter",
        "map",
        "scan",
    }
)


def _ints(inst: Instruction, name: str) -> tuple[int, ...]:
    """An int-list attribute (``dimensions={1,0}``); ``()`` when absent."""
    return inst.attrs.get(name) or ()


def _tuple_index(inst: Instruction) -> int:
    return inst.attrs.get("index", -1)


# --- per-opcode rules ---------------------------------------------------------------------


def _dot(a: _Pricer, inst: Instruction) -> Cost:
    return a.default(inst, flops=FMA_FLOPS * _elements_of(inst) * _contracted_size(inst))


def _ragged_dot(a: _Pricer, inst: Instruction) -> Cost:
    width = _contracted_size(inst)
    dims = list(inst.shape.dims)
    # XLA deletes dimension i of the result for each of the rhs group dimensions.
    for i in range(len(_ints(inst, "rhs_group_dims"))):
        if i < len(dims):
            del dims[i]
    out = _prod(d or 0 for d in dims)
    return a.default(inst, flops=FMA_FLOPS * out * width)


def _contracted_size(inst: Instruction) -> int:
    """The product of the lhs dimensions a dot contracts (``lhs_contracting_dims``)."""
    if len(inst.operands) < 2:
        raise _Malformed(f"{inst.opcode} needs two operands, has {len(inst.operands)}")
    dims = inst.operands[0].shape.dims
    contracting = _ints(inst, "lhs_contracting_dims")
    bad = [d for d in contracting if not 0 <= d < len(dims)]
    if bad:
        listed = ",".join(map(str, contracting))
        raise _Malformed(f"lhs_contracting_dims={{{listed}}} but lhs has rank {len(dims)}")
    return _prod(dims[d] or 0 for d in contracting)


def _convolution(a: _Pricer, inst: Instruction) -> Cost:
    return a.default(inst, flops=convolution_flops(inst))


def _reduce(a: _Pricer, inst: Instruction) -> Cost:
    sub = a.sub_ops(inst)
    shape = inst.shape
    out = shape.tuple_shapes[0] if shape.is_tuple else shape
    count = _elements_of(inst.operands[0]) - _elements(out)
    return a.default(inst, flops=sub.flops * count, trans=sub.transcendentals * count)


def _reduce_window(a: _Pricer, inst: Instruction) -> Cost:
    sub = a.sub_ops(inst)
    window = _window(inst)
    shape = inst.shape
    out = shape.tuple_shapes[0] if shape.is_tuple else shape
    out_elements = _elements(out)
    window_elements = _prod(w.size for w in window)
    count = (window_elements - 1) * out_elements
    # A reduce-window that is a reduce followed by a broadcast along one dimension.
    reduced = [w for w in window if w.size != 1]
    padded = [w for w in window if w.padding_low != 0 or w.padding_high != 0]
    if len(reduced) == 1 and len(padded) == 1 and not shape.is_tuple:
        for dim, w in enumerate(window):
            if (
                w.size != 1
                and w.padding_low != 0
                and w.padding_high != 0
                and w.padding_low == w.padding_high
                and w.size == 2 * w.padding_low + 1
            ):
                extent = shape.dims[dim] or 0
                if w.padding_low == extent - 1 and extent > 0:
                    count = out_elements // extent + (extent - 1)
                break
    return a.default(inst, flops=sub.flops * count, trans=sub.transcendentals * count)


def _select_and_scatter(a: _Pricer, inst: Instruction) -> Cost:
    called = inst.called_computations  # [select, scatter], in attribute order
    select = called[0] if called else None
    scatter = called[1] if len(called) > 1 else None
    source = _elements_of(inst.operands[1])
    window = _prod(w.size for w in _window(inst))
    selects = source * (window - 1)
    flops = trans = 0
    if select is not None:
        s = a.computation(select)
        flops += s.flops * selects
        trans += s.transcendentals * selects
    if scatter is not None:
        s = a.computation(scatter)
        flops += s.flops * source
        trans += s.transcendentals * source
    return a.default(inst, flops=flops, trans=trans)


def _map(a: _Pricer, inst: Instruction) -> Cost:
    sub = a.sub_ops(inst)
    n = _elements_of(inst)
    return a.default(inst, flops=sub.flops * n, trans=sub.transcendentals * n)


def _scan(a: _Pricer, inst: Instruction) -> Cost:
    """XLA prices a scan as its ``to_apply`` applied once (not once per step) plus the
    default bytes: tests/test_cost_rules.py asks XLA for scans of several lengths."""
    sub = a.sub_ops(inst)
    return a.default(inst, flops=sub.flops, trans=sub.transcendentals)


def _sort(a: _Pricer, inst: Instruction) -> Cost:
    n = _elements_of(inst.operands[0])
    log = (n - 1).bit_length() if n > 0 else 0
    return a.default(inst, flops=n * log)


def _fft(a: _Pricer, inst: Instruction) -> Cost:
    shape = inst.operands[0].shape
    if shape.is_tuple:
        shape = shape.tuple_shapes[0]
    factors = 1
    for length in _ints(inst, "fft_length"):
        factors *= length.bit_length() - 1 if length > 0 else -1
    return a.default(inst, flops=FMA_FLOPS * 4 * factors * _elements(shape))


def _tuple(a: _Pricer, inst: Instruction) -> Cost:
    return Cost.of(written=_size_of(inst))


def _slice(a: _Pricer, inst: Instruction) -> Cost:
    out = _size_of(inst)
    return Cost.of(read=out, written=out)


def _dynamic_slice(a: _Pricer, inst: Instruction) -> Cost:
    out = _size_of(inst)
    index = _size_of(inst.operands[1]) if len(inst.operands) > 1 else 0
    return Cost.of(read=out + index, written=out)


def _dynamic_update_slice(a: _Pricer, inst: Instruction) -> Cost:
    update = _size_of(inst.operands[1])
    index = _size_of(inst.operands[2]) if len(inst.operands) > 2 else 0
    return Cost.of(read=update + index, written=update)


def _gather(a: _Pricer, inst: Instruction) -> Cost:
    out = _size_of(inst)
    return Cost.of(read=out + _size_of(inst.operands[1]), written=out)


def _scatter(a: _Pricer, inst: Instruction) -> Cost:
    n = (len(inst.operands) - 1) // 2
    updates = inst.operands[n + 1 :]
    total = sum(_size_of(u) for u in updates)
    indices = _size_of(inst.operands[n])
    sub = a.sub_ops(inst)
    count = _elements_of(updates[0]) if updates else 0
    return Cost.of(sub.flops * count, sub.transcendentals * count, 2 * total + indices, total)


def _transpose(a: _Pricer, inst: Instruction) -> Cost:
    if len(inst.operands) != 1:
        raise _Malformed(f"transpose needs one operand, has {len(inst.operands)}")
    if _transpose_is_bitcast(inst):
        return ZERO
    return a.default(inst)


def _transpose_is_bitcast(inst: Instruction) -> bool:
    return transpose_is_bitcast(inst.operands[0].shape, inst.shape, _ints(inst, "dimensions"))


def transpose_is_bitcast(src: Shape, dst: Shape, perm: Sequence[int]) -> bool:
    """``ShapeUtil::TransposeIsBitcast``: the permutation only renames dimensions in memory."""
    if src.element_type != dst.element_type:
        return False
    out_m2m = dst.minor_to_major
    if len(perm) != len(out_m2m):
        return False
    return tuple(perm[i] for i in out_m2m) == src.minor_to_major


def _all_reduce(a: _Pricer, inst: Instruction) -> Cost:
    arrays = _array_subshapes(inst.shape)
    flops = sum(_elements(s) for s in arrays)
    written = sum(shape_size(s) for s in arrays)
    return Cost.of(flops, 0, a.default_read(inst), written)


def _rng(a: _Pricer, inst: Instruction) -> Cost:
    return a.default(inst, trans=_elements_of(inst))


def _rng_bit_generator(a: _Pricer, inst: Instruction) -> Cost:
    n = sum(_elements(s) for s in inst.shape.leaves())
    return a.default(inst, trans=n)


def _cholesky(a: _Pricer, inst: Instruction) -> Cost:
    shape = inst.operands[0].shape
    half = _size_of(inst.operands[0]) // 2
    flops = (shape.dims[-1] or 0) * _elements(shape) // 3 if shape.dims else 0
    return Cost.of(flops, 0, half, half)


def _triangular_solve(a: _Pricer, inst: Instruction) -> Cost:
    a_shape = inst.operands[0].shape
    b_shape = inst.operands[1].shape
    read = _size_of(inst.operands[0]) // 2 + _size_of(inst.operands[1])
    flops = FMA_FLOPS * (a_shape.dims[-1] or 0) * _elements(b_shape) if a_shape.dims else 0
    return Cost.of(flops, 0, read, _size_of(inst))


def _infeed(a: _Pricer, inst: Instruction) -> Cost:
    return Cost.of(written=sum(shape_size(s) for s in inst.shape.leaves()))


def _outfeed(a: _Pricer, inst: Instruction) -> Cost:
    read = sum(shape_size(s) for op in inst.operands for s in op.shape.leaves())
    return Cost.of(read=read)


def _call(a: _Pricer, inst: Instruction) -> Cost:
    """A ``call`` or ``async-start``: the cost of its computation."""
    called = inst.called_computations
    return a.computation(called[0]) if called else ZERO


def _while(a: _Pricer, inst: Instruction) -> Cost:
    """The body plus the condition, once (XLA's rule), or times the known trip count when the
    analysis counts executions."""
    cost = ZERO
    for called in inst.called_computations:  # the condition and the body
        cost = cost + a.computation(called)
    if a.trip_counts:
        n = known_trip_count(inst)
        if n is not None:
            cost = cost.scaled(n)
    return cost


def _conditional(a: _Pricer, inst: Instruction) -> Cost:
    """Each quantity's maximum over the branches (only one of them runs)."""
    called = inst.called_computations
    if not called:
        return ZERO
    return _max_cost([a.computation(c) for c in called])


def _fusion(a: _Pricer, inst: Instruction) -> Cost:
    """The FLOPs of the fused computation, the bytes at the kernel's boundary (see
    ``_Pricer.fusion``, which keeps one cost per distinct fused body)."""
    return a.fusion(inst)


def _kernel_estimate(inst: Instruction) -> dict[str, Any] | None:
    """The ``cost_estimate`` a kernel's author gave it (``pallas_call(cost_estimate=...)``),
    which JAX writes into the custom call's backend config and XLA:TPU's cost analysis uses;
    None when there is none, or it is not a mapping of numbers."""
    config = inst.attrs.get("backend_config")
    if not isinstance(config, dict):
        return None
    kernel = config.get("custom_call_config")
    estimate = (kernel if isinstance(kernel, dict) else config).get("cost_estimate")
    if not isinstance(estimate, dict):
        return None
    try:
        # Protobuf's JSON prints 64-bit integers as strings: "flops":"8589934592".
        return {key: int(estimate.get(key, 0)) for key in _ESTIMATE_KEYS}
    except (TypeError, ValueError):
        return None


_ESTIMATE_KEYS = ("flops", "transcendentals", "bytes_accessed")


def _estimated(inst: Instruction, estimate: dict[str, Any]) -> Cost:
    """A kernel's cost from its author's estimate: XLA has only the total of bytes, so the
    result's size counts as written (up to that total) and the rest as read."""
    total = max(0, estimate["bytes_accessed"])
    written = min(total, _output_size_of(inst))
    return Cost.of(
        max(0, estimate["flops"]), max(0, estimate["transcendentals"]), total - written, written
    )


def _types(shape: Shape) -> list[str]:
    """``["bf16[2048,1024]"]``: an array's type without its layout; a tuple's, one each."""
    if shape.is_tuple:
        return [t for element in shape.tuple_shapes for t in _types(element)]
    return [f"{shape.element_type}[{','.join(str(d) for d in shape.dims)}]"]


def _captured_estimate(inst: Instruction) -> dict[str, Any] | None:
    """The capture's estimate of this kernel (``Module.kernel_estimates``, made from its
    jaxpr by :mod:`hloscope.backends.pallas_kernels`), found by its operand and result types."""
    module = inst.computation.module if inst.computation is not None else None
    estimates = getattr(module, "kernel_estimates", None)
    if not estimates:
        return None
    operands = [t for operand in inst.operands for t in _types(operand.shape)]
    results = _types(inst.shape)
    for estimate in estimates:
        if estimate.get("operands") == operands and estimate.get("results") == results:
            return estimate
    return None


def _top_k(a: _Pricer, inst: Instruction) -> Cost:
    """XLA:TPU's ``TopK``: one FLOP per input element for each of the k results kept, as
    XLA:TPU's cost analysis counts it (tests/data/tpu_xla_kernels: 256x32000 with k=8,
    64x50000 with k=16)."""
    kept = inst.shape.tuple_shapes[0] if inst.shape.is_tuple else inst.shape
    k = kept.dims[-1] if kept.dims else None
    if not inst.operands or k is None:
        return a.default(inst, flag="custom-call TopK without an operand or a k")
    return a.default(inst, _elements(inst.operands[0].shape) * k)


def _tiled(inst: Instruction) -> bool:
    """Whether XLA:TPU made ``inst``: its result prints tiles (``{1,0:T(8,128)}``)."""
    return any(leaf.layout is not None and leaf.layout.tiles for leaf in inst.shape.leaves())


def _no_flops(a: _Pricer, inst: Instruction) -> Cost:
    return a.default(inst)


# XLA:TPU's own custom calls other than kernels, costed as XLA:TPU counts them.
# AssumeGatherIndicesInBound marks a gather's indices as in bounds (it computes nothing).
_XLA_TPU_CALLS: dict[str, Callable[[_Pricer, Instruction], Cost]] = {
    "TopK": _top_k,
    "AssumeGatherIndicesInBound": _no_flops,
}


def _custom_call(a: _Pricer, inst: Instruction) -> Cost:
    target = inst.attrs.get("custom_call_target", "")
    estimate = _kernel_estimate(inst)
    if estimate is not None:
        return _estimated(inst, estimate)  # XLA:TPU prices the kernel the same way
    if a.custom_calls == "xla":
        return Cost(-1, 0, 0, -1, -1, f"custom-call {target}: cost unknown to XLA (-1)")
    if target in FREE_CUSTOM_CALL_TARGETS:
        return ZERO  # XLA:TPU reinterprets buffers that already lie side by side
    known = _XLA_TPU_CALLS.get(target)
    if known is not None and _tiled(inst):  # XLA:CPU's TopK is unknown to its own analysis
        return known(a, inst)
    body = xla_kernel_body(inst)
    if body is not None:  # XLA:TPU's own kernel: no pallas_call, its text says what it does
        counted = mosaic_cost(body)
        if counted is not None and (counted.flops or counted.transcendentals):
            flag = f"custom-call {target} {inst.op_name}: {XLA_KERNEL_ESTIMATED}"
            return a.default(inst, counted.flops, counted.transcendentals, flag=flag)
        return a.default(inst, flag=f"custom-call {target} {inst.op_name}: {XLA_KERNEL_UNKNOWN}")
    if target in PALLAS_TARGETS:
        captured = _captured_estimate(inst)
        if captured is not None:
            flops, trans = int(captured["flops"]), int(captured["transcendentals"])
            return a.default(inst, flops, trans, flag=f"custom-call {target}: {PALLAS_ESTIMATED}")
        return a.default(inst, flag=f"custom-call {target}: {PALLAS_UNKNOWN}")
    return a.default(inst, flag=f"custom-call {target}: cost unknown (boundary bytes, 0 FLOPs)")


Rule = Callable[["_Pricer", "Instruction"], Cost]

_HANDLERS: dict[str, Rule] = {
    "tuple": _tuple,
    "dot": _dot,
    "scaled-dot": _dot,
    "ragged-dot": _ragged_dot,
    "convolution": _convolution,
    "reduce": _reduce,
    "reduce-window": _reduce_window,
    "select-and-scatter": _select_and_scatter,
    "map": _map,
    "scan": _scan,
    "sort": _sort,
    "fft": _fft,
    "slice": _slice,
    "dynamic-slice": _dynamic_slice,
    "dynamic-update-slice": _dynamic_update_slice,
    "gather": _gather,
    "scatter": _scatter,
    "transpose": _transpose,
    "all-reduce": _all_reduce,
    "all-reduce-start": _all_reduce,
    "rng": _rng,
    "rng-bit-generator": _rng_bit_generator,
    "cholesky": _cholesky,
    "triangular-solve": _triangular_solve,
    "infeed": _infeed,
    "outfeed": _outfeed,
    "fusion": _fusion,
    "while": _while,
    "call": _call,
    "conditional": _conditional,
    "async-start": _call,
    "custom-call": _custom_call,
}


def rule_sets() -> dict[str, frozenset[str]]:
    """Each way an opcode can be priced (see the module docstring), by name, with the opcodes
    it prices."""
    return {
        "zero cost": ZERO_COST_OPCODES,
        "one per element": _ONE_FLOP_PER_ELEMENT,
        "default": _DEFAULT_OPCODES,
        "own rule": frozenset(_HANDLERS),
        "no XLA rule": NO_XLA_RULE_OPCODES,
    }


def opcodes_without_rule(opcodes: Iterable[str] = OPCODES) -> list[str]:
    """The ``opcodes`` no rule set prices (each would get the default bytes silently)."""
    ruled = frozenset().union(*rule_sets().values())
    return [op for op in opcodes if op not in ruled]

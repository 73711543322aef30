"""A cost model for HLO: FLOPs, transcendentals and bytes, per instruction, kernel and module.

The rules are XLA's own ``HloCostAnalysis`` (``xla/service/hlo_cost_analysis.cc``) with the CPU
client's shape-size function (``CpuExecutable::ShapeSizeBytes``), so that :func:`module_cost`
on an optimized module agrees with what ``jax.jit(f).lower(x).compile().cost_analysis()``
reports. What XLA counts, and therefore what this module counts:

FLOPs
    Elementwise ops: one per output element (``convert``, ``compare``, ``select`` and
    ``clamp`` included). ``dot``: ``2 * output elements * contracted size`` (batch dimensions
    are in the output). ``convolution``: ``2 * (input features / feature_group_count) *
    output features * (batch / batch_group_count) * valid window positions``, where the valid
    positions skip padding and dilation holes exactly as XLA's loop does. ``reduce``,
    ``reduce-window``, ``select-and-scatter``, ``scatter`` and ``map``: the FLOPs of their
    scalar computation times the number of times it is applied. ``sort``: ``n * ceil(log2 n)``.
    ``fft``: ``8 * prod(floor(log2 fft_length)) * elements``. ``scan``: the FLOPs of its
    computation once (XLA does not multiply them by the scan's length). ``all-reduce``: one
    per output element. Data movement (``copy``, ``transpose``, ``slice``, ``broadcast``...)
    costs none.
Transcendentals
    Counted apart from FLOPs, one per output element of ``exponential``, ``log``, ``tanh``,
    ``logistic``, ``power``, ``sqrt``, ``rsqrt``, ``cbrt``, ``sine``, ``cosine``, ``tan``,
    ``atan2``, ``erf``, the inverse and hyperbolic trigonometric functions, and ``rng``.
Bytes
    An instruction reads its operands and writes its output (``bytes_read`` +
    ``bytes_written`` = ``bytes_accessed``). Exceptions: ``parameter``, ``constant``,
    ``get-tuple-element``, ``bitcast``, ``after-all``, ``add-dependency``, ``domain`` and a
    ``transpose`` that is a bitcast in its layouts touch nothing; ``tuple`` writes only its
    table of 8-byte pointers; ``slice``, ``dynamic-slice`` and ``gather`` read only as much of
    the sliced operand as they output; ``dynamic-update-slice`` and ``scatter`` count only the
    updated part (the operand is updated in place). A tuple-shaped result counts the arrays
    it holds (a ``sort`` of two arrays writes both), but a tuple-shaped *operand* counts only
    its table of 8-byte pointers, as does the result of ``tuple`` itself.
Fusions (kernel boundaries)
    A fusion counts its FLOPs and transcendentals over the fused computation, but bytes only
    at its boundary: each array it outputs (a ``dynamic-update-slice`` root counts only its
    update), each fused constant with more than one element, and for each operand what the
    fused computation actually reads: the whole operand once, except that a parameter read
    only through ``slice``/``dynamic-slice`` counts the slices, and ``broadcast`` and
    ``reshape`` users each count the whole operand again (XLA's rule).
Control flow
    ``while`` costs its body plus its condition **once**: XLA does not multiply by the trip
    count. ``call`` and ``async-start`` cost their computation; ``conditional`` costs, for each
    quantity separately, the maximum over its branches. :attr:`ModuleCost.executed` gives the
    totals with while bodies multiplied by their ``known_trip_count``, an estimate XLA does not
    make. :func:`~hloscope.hlo.placement.placements` says where each computation runs (the
    entry, a loop's body ``×n``, a branch) and :func:`control_flow_cost` applies these rules
    to any per-instruction cost, so that a report counting only kernels still adds up the way
    XLA does.

Differences from XLA (documented and tested):

* ``custom-call``: XLA:TPU's ``ConcatBitcast`` (:data:`FREE_CUSTOM_CALL_TARGETS`) only
  reinterprets buffers that lie side by side: it costs nothing. Other custom calls: XLA marks
  the cost unknown by adding -1 FLOPs and -1 bytes. Here such a custom call costs 0 FLOPs and
  its boundary bytes (operands read, result written) and is listed in
  :attr:`ModuleCost.flagged`. ``module_cost(module, custom_calls="xla")`` reproduces XLA's -1s.
  A custom call whose backend config carries a ``cost_estimate`` (what JAX writes for
  ``pallas_call(..., cost_estimate=pl.CostEstimate(...))``) costs that estimate's FLOPs,
  transcendentals and bytes, unflagged, as XLA:TPU's analysis counts it; a Pallas kernel
  without one (:data:`PALLAS_TARGETS`) is flagged saying so. A ``tpu_custom_call`` XLA:TPU
  wrote itself (``online-softmax``: its Mosaic module as text, not a ``pallas_call``'s
  bytecode) without one costs the FLOPs its Mosaic body computes times its grid, flagged as
  hloscope's estimate (:data:`XLA_KERNEL_ESTIMATED`; ``_mosaic``), never as a Pallas kernel.
* Opcodes this XLA does not know (from newer dumps) cost their boundary bytes and 0 FLOPs and
  are flagged; XLA's parser would reject them. Those of them in hloscope's opcode table
  (:data:`NO_XLA_RULE_OPCODES`) cost the same, unflagged.
* XLA sums in 32-bit floats; totals here are exact integers (relative difference < 1e-6).
* Text that parses but breaks an op's invariants (a ``dot`` contracting a dimension its
  operand lacks, convolution ``dim_labels`` of another rank than the shapes, a ``transpose``
  without an operand) costs 0, is flagged, and raises a :class:`CostWarning` naming the
  instruction and its line. XLA's analysis reads out of bounds there; no rule can be right.

Nothing here recurses on nesting: computations are costed callees first, in an order worked
out with an explicit stack, so a chain of ten thousand nested calls, loops or fusions costs
what its shallow equivalent does, in time linear in its size.

The modules of this package: ``_results`` (:class:`Cost`, :class:`ModuleCost`, the warning),
``_shapes`` (byte sizes and their one, bounded cache), ``_windows`` (convolution window
positions), ``_mosaic`` (XLA:TPU's own Mosaic kernels, told from Pallas kernels and costed
from their text), ``_rules`` (which opcode costs what: the opcode sets and one rule per opcode) and
``_analysis`` (the memoised walk and the public functions). Where computations run
(:class:`Placement` and the rest) is :mod:`hloscope.hlo.placement`, re-exported here.
"""

from __future__ import annotations

from ...hlo.placement import (
    Placement,
    Role,
    Step,
    kernel_computations,
    known_trip_count,
    placements,
)
from ._analysis import (
    IMMEDIATE_CONSTANT_MAX_ELEMENTS,
    CustomCallRule,
    body_costs,
    computation_cost,
    control_flow_cost,
    instruction_cost,
    instruction_costs,
    module_cost,
)
from ._columns import fused_body_cost
from ._results import FMA_FLOPS, ZERO, Cost, CostWarning, FlaggedOp, ModuleCost
from ._rules import (
    FREE_CUSTOM_CALL_TARGETS,
    NO_XLA_RULE_OPCODES,
    PALLAS_ESTIMATE_HINT,
    PALLAS_ESTIMATED,
    PALLAS_TARGETS,
    PALLAS_UNKNOWN,
    TRANSCENDENTAL_OPCODES,
    XLA_KERNEL_ESTIMATED,
    XLA_KERNEL_UNKNOWN,
    ZERO_COST_OPCODES,
    estimated_pallas_kernels,
    estimated_xla_kernels,
    unestimated_pallas_kernels,
)
from ._shapes import POINTER_SIZE, SHAPE_CACHE_LIMIT, shape_size
from ._windows import (
    _progression_hits,  # noqa: F401  (tests/test_analysis_limits.py checks them directly)
    _progression_hits_summed,  # noqa: F401
    convolution_flops,
    valid_window_positions,
)

__all__ = [
    "FREE_CUSTOM_CALL_TARGETS",
    "PALLAS_ESTIMATE_HINT",
    "PALLAS_ESTIMATED",
    "estimated_pallas_kernels",
    "estimated_xla_kernels",
    "XLA_KERNEL_ESTIMATED",
    "XLA_KERNEL_UNKNOWN",
    "PALLAS_TARGETS",
    "unestimated_pallas_kernels",
    "PALLAS_UNKNOWN",
    "Cost",
    "CostWarning",
    "FlaggedOp",
    "ModuleCost",
    "module_cost",
    "instruction_cost",
    "instruction_costs",
    "body_costs",
    "fused_body_cost",
    "computation_cost",
    "control_flow_cost",
    "kernel_computations",
    "known_trip_count",
    "placements",
    "Placement",
    "Role",
    "Step",
    "shape_size",
    "TRANSCENDENTAL_OPCODES",
    "ZERO_COST_OPCODES",
    "NO_XLA_RULE_OPCODES",
    "convolution_flops",
    "valid_window_positions",
    "CustomCallRule",
    "ZERO",
    "POINTER_SIZE",
    "FMA_FLOPS",
    "IMMEDIATE_CONSTANT_MAX_ELEMENTS",
    "SHAPE_CACHE_LIMIT",
]

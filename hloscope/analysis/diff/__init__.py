"""The kernel diff: what changed between two compilations, kernel by kernel.

You refactor a layer, bump jax, change a flag, and the program gets slower. :func:`diff` puts
the optimized HLO of *before* (A) and *after* (B) side by side and says which kernels XLA made
differently, from which source lines, and what it costs in bytes moved through memory and FLOPs.

Kernel names are no help: XLA numbers fusions in the order it builds them, so ``fusion.3`` in A
and ``fusion.3`` in B need not have anything in common. Kernels are matched through their
**provenance** instead, in this order, each step working only on what the previous ones left:

1. Kernels made of the same code: the same multiset of ops by ``op_name``, opcode and whole
   call stack, then (code that moved) by ``op_name`` and opcode alone. Op names are compared
   through :func:`provenance_name`: JAX's outer ``jit(f)/`` dropped (``jit(fused)/mul`` and
   ``jit(split)/mul`` are one name) and what ``jax.checkpoint`` adds (``checkpoint``, a
   repeated ``jvp``) normalized away; its recomputed ops keep their ``rematted_computation``
   mark, so that the recomputation shows as kernels B added. Models repeat themselves:
   blocks built by the same code have kernels alike in all of this when neither a named scope
   (Flax's module path) nor the caller's line tells them apart. Such twins are told apart by
   what they read: the same entry parameters (a block's own weights), producers and consumers
   already paired with each other, then shapes, then the fused ops; a pair is formed only when
   each kernel is the other's single best candidate, and pairing one tells its neighbours more,
   so the evidence spreads along the graph. Only a tie that nothing breaks falls back to the
   schedule order. (See :meth:`._matching._Matcher._pair_kernels_by` for why this is greedy
   and not an optimal assignment.)
2. The ops of the remaining kernels, paired one to one by provenance: same name, opcode,
   shape and ``file:line``; then same name, opcode and line (the shape changed); then, for code
   that moved (lines shifted, or the function was renamed), the longest common subsequence of
   the two op sequences in source order, keyed by name, opcode and shape, then by name and
   opcode (shapes changed); then any remaining ops with equal keys in order; finally names
   with numbers masked (TensorFlow's ``dense_1`` vs ``dense_2``).
3. Two kernels are linked when paired ops join them. Broadcasts, constants, bitcasts and other
   ops XLA freely copies into several kernels only link kernels made of nothing else, and a
   link carrying under a quarter of both kernels' ops is dropped (unless it is a kernel's only
   one), so that one ambiguous op does not glue unrelated kernels together. Nor is a link
   kept, for now, between kernels that compute different things (``_compute``: an attention
   or softmax kernel and a layer-norm kernel; a matmul and a norm): ops named ``reduce_sum``
   or ``div`` on the same line are no evidence that a softmax became a layer norm; nor one
   from a kernel with such distinctive work to a kernel with none (often all that is left of
   the first, whose counterpart is elsewhere).
4. Kernels left without a link are paired by the multiset of their ops (opcodes and shapes,
   then opcodes alone with the same op names), within the same computation traits, with the
   same best-candidate rule as step 1; then by what they compute and where they came from:
   the same layout-free fingerprint or the same distinctive work (dot, softmax, norm), called
   through a line both sides share (``_origins``: code replaced by a library call keeps its
   caller's line), each the other's single best candidate. Kernels still unpaired then
   follow the links that waited (strongest first): they join the group at the other end, or
   form one with it. A group joined only by a link between unlike computations is said to
   be ``unrelated``.

Each connected group of kernels is one :class:`KernelChange`:

``unchanged``  one kernel each side with the same ops (opcodes and shapes), bytes and FLOPs;
``changed``    one kernel each side, different ops, shapes, bytes or FLOPs;
``split``      one kernel in A whose ops now spread over several kernels in B: the values that
               passed between them inside the kernel now go through memory;
``merged``     several kernels of A fused into one kernel in B;
``regrouped``  several kernels of A whose ops are now spread differently over several in B;
``added``      a kernel of B with no counterpart in A; ``removed``: the converse.

Each change also says what its kernels compute (``computes_a``, ``computes_b``: attention,
normalization, matmul...), whether they are ``unrelated``, and which of its source lines only
one side has: ``replaced_a`` became ``replaced_b`` (:attr:`KernelDiff.replaced_lines` joins
them over all changes: the five lines of a hand-written attention became the one line that
calls the library).

Attributes other than shapes (constant values, comparison directions, dimensions) are not
compared: a kernel with the same ops, shapes and cost is unchanged. Bytes are the boundary
bytes of :mod:`hloscope.analysis.cost` (what each kernel reads and writes); every kernel is in
exactly one change, so the changes' deltas add up to the totals'.

:attr:`KernelDiff.lines` turns it around by source line: for each line whose ops moved, how
many kernels they were and are in, and which other lines they no longer (or now) share a
kernel with. Lines of A are paired one to one with lines of B by what they are (the same
function and code text, then the same code text, then the most op names in common within a
function, then order within a function: :func:`pair_lines`), so a line that moved is
followed to where it went (:attr:`KernelDiff.line_pairs`).

Inputs are each a parsed :class:`~hloscope.hlo.model.Module` or a
:class:`~hloscope.analysis.fusions.FusionReport`. A FusionReport carries no op names or op
shapes, so reports are matched by opcode and source line only; pass modules where you can. To
diff TARGETs (HLO files, dump folders, scripts), resolve them first: ``hloscope.diff(A, B)``
does, and picks the main module of a target that holds several.

The results are data: statuses are :class:`ChangeStatus` / :class:`LineStatus` members (equal
to their strings), :meth:`KernelDiff.regressions` gives :class:`Regression` records. The words
(a sentence per change, regression lines, the JSON with messages) are
:mod:`hloscope.render.diff_text`'s.

The modules of this package, in the order the diff uses them:

* ``_names``: op names and source locations as matching keys (:func:`provenance_name`,
  :func:`without_layout`, :func:`parse_where`);
* ``_sides``: one side of the diff (:class:`DiffSide`), its kernels and their ops, built from
  a module or a fusion report;
* ``_facts``: what pairing compares per kernel: provenance keys, op multisets, and the facts
  (operands, neighbours, shapes) that score twin kernels against each other;
* ``_compute``: what a kernel computes (:class:`Trait`, :class:`KernelCompute`), and which
  computations may be paired (:func:`compatible`);
* ``_origins``: every frame of a kernel's call stacks, paired across the sides, and how
  closely two kernels are related by them;
* ``_matching``: :func:`diff` and the matcher that runs steps 1 to 4 above;
* ``_links``: step 3's link graph: kernels linked through paired ops, weighed, kept or
  set aside to wait, grouped into connected components;
* ``_changes``: a connected group of kernels turned into a :class:`KernelChange` (its status,
  op and shape deltas, the arrays that now go through memory);
* ``_line_pairing``: which source line of B each line of A became, one to one
  (:func:`pair_lines`: function and code text, then op names, then order);
* ``_source_lines``: the same result turned around by source line (:class:`LineChange`);
* ``_communication``: the collectives of the two sides compared per kind
  (:func:`communication_diff`), for two shardings of one model;
* ``_results``: the result model (:class:`KernelDiff`, :class:`KernelChange`,
  :class:`LineChange`, :class:`Regression`, the status enums and :data:`METRICS`).
"""

from __future__ import annotations

from ._communication import CommunicationDiff, KindTotals, communication_diff, kind_totals
from ._compute import KernelCompute, Trait, compatible, kernel_computes
from ._facts import _structure  # noqa: F401  (tests/test_diff_scores.py)
from ._line_pairing import SourceLine, pair_lines, source_lines
from ._matching import (
    _Matcher,  # noqa: F401  (tests/test_diff_scores.py checks its scores directly)
    diff,
)
from ._names import parse_where, provenance_name, without_layout, without_outer_jit
from ._results import (
    DIFF_SCHEMA,
    METRICS,
    STATUSES,
    ChangeStatus,
    KernelChange,
    KernelDiff,
    LineChange,
    LineStatus,
    MemoryEdge,
    Regression,
)
from ._sides import DiffSide, _side  # noqa: F401  (_side: tests/test_diff_scores.py)

__all__ = [
    "diff",
    "communication_diff",
    "kind_totals",
    "CommunicationDiff",
    "KindTotals",
    "KernelDiff",
    "KernelChange",
    "LineChange",
    "DiffSide",
    "MemoryEdge",
    "Regression",
    "ChangeStatus",
    "LineStatus",
    "STATUSES",
    "METRICS",
    "DIFF_SCHEMA",
    "without_layout",
    "without_outer_jit",
    "provenance_name",
    "parse_where",
    "pair_lines",
    "source_lines",
    "SourceLine",
    "KernelCompute",
    "Trait",
    "compatible",
    "kernel_computes",
]

"""From a Python line to the kernel that runs it: every stage of one program, side by side.

JAX takes a function through four texts, each on its own: the **jaxpr** (the traced
program), **StableHLO** (what JAX hands the compiler), **HLO before optimization** (XLA's
input) and **HLO after optimization**, where the ops sit in *kernels* (fusions and the ops
left to run alone). :func:`explain` links them through the one thing they all keep, where
each op came from:

* a jaxpr equation knows its traceback (gathered by :mod:`hloscope.capture.jaxpr_lines`,
  since only a live jaxpr has it);
* a StableHLO op carries an MLIR location, ``loc(#loc25)``, which the location table at the
  end of the text resolves to a name (the ``op_name``, ``jit(f)/jvp()/mul``) and a call stack
  (``callsite("f"("model.py":5:8) at ...)``); :mod:`hloscope.hlo.stablehlo` reads it from the
  text, no MLIR needed;
* an HLO instruction has ``metadata={op_name=... stack_frame_id=...}``, and in the optimized
  module the members of every fusion keep theirs.

The bodies jax outlines (a scan's or loop's body, ``closed_call``, a nested ``jax.jit``) are
private functions in StableHLO and called computations in HLO, whose ops are named relative to
them (``mul``) until XLA inlines the calls (``jit(f)/while/body/closed_call/mul``); both
stages' ops get the inlined name and the call site's stack here, as XLA's call inliner gives
them, so they link to their kernels and count for their lines.

Each op's *source* is the innermost frame of its stack in the user's own code, by the rule of
:mod:`hloscope.analysis.provenance`, so the lines here are the lines of ``hloscope fusions
--by-source`` and the per-line op counts after optimization agree with
:func:`~hloscope.analysis.fusions.by_source`. For TensorFlow, whose ops record only
TensorFlow's own frames, the source is the Keras layer path of the ``op_name``
(``model_1/dense_1``), and there is no jaxpr or StableHLO.

Ops are linked to kernels more finely than by line: an op of an earlier stage ended in the
kernels whose members have its ``op_name`` and stack (a jaxpr equation: its primitive, the
last part of the ``op_name``, and its line). Kernels with no source of their own (XLA makes
some: the ``reduce-window`` a tree reduction splits off, copies) get one by inference, marked
as such: from an earlier stage's op with the same ``op_name``, else from the op before
optimization they hold (a ``dot``), else from the nearest op with a line along what reads
them (inside a fusion, the member the value enters; a loop for its counter's copy), else
along what they read.

For example::

    e = explain(capture_with_sources(step, *args))     # or a Module (hloscope.explain: a Target)
    e.lines[0].source, e.lines[0].counts()            # 'model.py:12 (f)', {...}
    e.focus_line("model.py:12").to_dict()
    e.focus_kernel("fusion.3")

What is missing is said, not guessed: a plain HLO file holds one stage, a dump folder has no
jaxpr or StableHLO, a capture saved without jaxpr sources has the jaxpr text but not its lines
(:attr:`Explanation.missing`).

The package, in the order :func:`explain` runs:

* ``_inputs``: the stages one program has, from a capture, an HLO file or modules, and why an
  absent one is absent (:class:`ProgramStages`; a TARGET's are found by
  :mod:`hloscope.drivers.explain`, which opens it);
* ``_linking``: each stage's ops put on their lines and joined to the kernels they ended in;
* ``_inference``: a line for each kernel that has none of its own;
* ``_results``: what comes out (:class:`Explanation` and its parts), and the focus on one
  line or one kernel;
* ``_explain``: :func:`explain` itself.
"""

from __future__ import annotations

from ...hlo.stablehlo import StableHloOp, stablehlo_ops
from ..errors import ExplainError, FocusNotFound
from ._explain import explain
from ._inputs import (
    ProgramStages,
    before_beside,
    is_optimized,
    stages_of_capture,
    stages_of_file,
    stages_of_modules,
)
from ._results import (
    STAGE_ORDER,
    ExplainedKernel,
    Explanation,
    LinkedOp,
    SourceLine,
)

__all__ = [
    "ExplainError",
    "FocusNotFound",
    "LinkedOp",
    "SourceLine",
    "ExplainedKernel",
    "Explanation",
    "StableHloOp",
    "explain",
    "stablehlo_ops",
    "before_beside",
    "is_optimized",
    "ProgramStages",
    "stages_of_capture",
    "stages_of_file",
    "stages_of_modules",
    "STAGE_ORDER",
]

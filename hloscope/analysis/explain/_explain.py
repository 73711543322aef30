"""The entry point: :func:`explain` gathers a program's stages, links them and infers the lines
of the kernels that have none."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..errors import FocusNotFound
from ._inference import _infer
from ._inputs import _inputs
from ._linking import (
    _add_before,
    _add_jaxpr,
    _add_stablehlo,
    _Builder,
    _KernelIndex,
    _kernels_and_members,
)
from ._results import STAGE_ORDER, ExplainedKernel, Explanation

if TYPE_CHECKING:  # pragma: no cover
    from ...backends.record import Capture
    from ...capture.jaxpr_lines import JaxprSources
    from ...capture.target import Target
    from ...hlo.model import Module


def explain(
    value: Capture | Target | Module | str | os.PathLike[str],
    *,
    line: str | None = None,
    kernel: str | None = None,
    module: str | Module | None = None,
    before: Module | None = None,
    jaxpr: JaxprSources | None = None,
) -> Explanation:
    """Link every source line of a program to its jaxpr equations, StableHLO ops, HLO
    instructions before optimization and the kernels they ended in.

    ``value`` is a :class:`~hloscope.capture.inprocess.Capture` (a
    :class:`~hloscope.capture.jaxpr_lines.SourcedCapture` brings the jaxpr's lines), a
    :class:`~hloscope.capture.target.Target` or TARGET string (resolving a script runs it; a
    ``SCRIPT.py:FUNCTION`` target's jaxpr lines come from
    :func:`~hloscope.capture.jaxpr_lines.capture_for_target`, which the CLI calls), or an HLO
    :class:`Module` (optimized, or with ``before=`` its module before optimization). ``module``
    picks a module of a multi-module target (a name, or the :class:`Module`
    :meth:`~hloscope.capture.target.Target.choose_module` chose); ``jaxpr`` gives the jaxpr's
    sources explicitly. An ``X.after_optimizations.txt`` file is read with the
    ``X.before_optimizations.txt`` beside it (:func:`before_beside`), a dump's optimized module
    with the HLO before optimization of the same compilation.
    ``line="FILE:N"`` or ``kernel="NAME"`` narrow the result (:meth:`Explanation.focus_line`,
    :meth:`Explanation.focus_kernel`).
    """
    if line is not None and kernel is not None:
        raise FocusNotFound("focus on a line or on a kernel, not both")
    inputs = _inputs(value, module, before, jaxpr)
    builder = _Builder()
    index: _KernelIndex | None = None
    explained: dict[str, ExplainedKernel] = {}
    if inputs.after is not None:
        index = _KernelIndex()
        explained = _kernels_and_members(inputs.after, builder, index)
    module_name = inputs.after.name if inputs.after is not None else inputs.name
    if inputs.before is not None:
        _add_before(inputs.before, builder, index)
    if inputs.stablehlo is not None:
        _add_stablehlo(inputs.stablehlo, module_name, builder, index)
    if inputs.jaxpr is not None:
        _add_jaxpr(inputs.jaxpr, builder, index)
    if inputs.after is not None:
        _infer(inputs.after, explained, builder)
    stages = [s for s in STAGE_ORDER if str(s) not in inputs.missing]
    result = Explanation(
        module=module_name,
        frontend=inputs.frontend,
        stages=stages,
        missing=dict(inputs.missing),
        lines=builder.finish(_snapshot(inputs)),
        kernels=list(explained.values()),
        unattributed=dict(builder.unattributed),
        notes=_notes(explained.values()),
    )
    if line is not None:
        return result.focus_line(line)
    if kernel is not None:
        return result.focus_kernel(kernel)
    return result


def _snapshot(inputs: Any) -> dict[str, str]:
    """The source files as the program's capture ran them (``Module.source_files``)."""
    for module in (inputs.after, inputs.before):
        if module is not None and module.source_files:
            return module.source_files
    return {}


def _notes(kernels: Iterable[ExplainedKernel]) -> list[str]:
    inferred = [k for k in kernels if not k.sources]
    if not inferred:
        return []
    traced = sum(1 for k in inferred if k.inferred_sources)
    names = ", ".join(k.name for k in inferred[:4]) + (", ..." if len(inferred) > 4 else "")
    note = (
        f"{len(inferred)} kernel(s) have no source line of their own ({names}): XLA made them "
        f"or dropped their metadata; {traced} were traced to a line through their op_name, "
        "the op they hold or the ops next to them (marked 'inferred')"
    )
    return [note]

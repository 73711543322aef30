"""The entry point: :func:`explain` gathers a program's stages, links them and infers the lines
of the kernels that have none. It takes data (a capture, modules, the stages found); opening a
TARGET for them is :func:`hloscope.drivers.explain.explain` (``hloscope.explain``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..errors import FocusNotFound
from ._inference import _infer
from ._inputs import ProgramStages, _inputs
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
    from ...backends.jaxpr_records import JaxprSources
    from ...backends.record import Capture
    from ...hlo.model import Module


def explain(
    value: Capture | Module | ProgramStages,
    *,
    line: str | None = None,
    kernel: str | None = None,
    before: Module | None = None,
    jaxpr: JaxprSources | None = None,
) -> Explanation:
    """Link every source line of a program to its jaxpr equations, StableHLO ops, HLO
    instructions before optimization and the kernels they ended in.

    ``value`` is a :class:`~hloscope.backends.record.Capture` (a
    :class:`~hloscope.capture.jaxpr_lines.SourcedCapture` brings the jaxpr's lines), an HLO
    :class:`Module` (optimized, or with ``before=`` its module before optimization), or the
    :class:`~._inputs.ProgramStages` found of a program (:func:`~._inputs.stages_of_file`
    reads an ``X.after_optimizations.txt`` file with the ``X.before_optimizations.txt``
    beside it; :func:`hloscope.drivers.explain.explain` finds a TARGET's, a dump's optimized
    module with the HLO before optimization of the same compilation). ``jaxpr`` gives the
    jaxpr's sources explicitly.
    ``line="FILE:N"`` or ``kernel="NAME"`` narrow the result (:meth:`Explanation.focus_line`,
    :meth:`Explanation.focus_kernel`).
    """
    if line is not None and kernel is not None:
        raise FocusNotFound("focus on a line or on a kernel, not both")
    inputs = _inputs(value, before, jaxpr)
    builder = _Builder()
    module_name = inputs.after.name if inputs.after is not None else inputs.name
    explained = _linked(inputs, module_name, builder)
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


def _linked(
    inputs: ProgramStages, module_name: str, builder: _Builder
) -> dict[str, ExplainedKernel]:
    """Every stage ``inputs`` has added to ``builder``, linked through the kernels of the
    optimized module when there is one; those kernels, explained."""
    index: _KernelIndex | None = None
    explained: dict[str, ExplainedKernel] = {}
    if inputs.after is not None:
        index = _KernelIndex()
        explained = _kernels_and_members(inputs.after, builder, index)
    if inputs.before is not None:
        _add_before(inputs.before, builder, index)
    if inputs.stablehlo is not None:
        _add_stablehlo(inputs.stablehlo, module_name, builder, index)
    if inputs.jaxpr is not None:
        _add_jaxpr(inputs.jaxpr, builder, index)
    if inputs.after is not None:
        _infer(inputs.after, explained, builder)
    return explained


def _snapshot(inputs: ProgramStages) -> dict[str, str]:
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

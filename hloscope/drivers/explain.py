"""Explaining what a TARGET names: the target opened (its capture, its dump, its HLO file), its
stages found, and the linking handed to :func:`hloscope.analysis.explain.explain`, which takes
data and opens nothing. ``hloscope.explain`` and ``hloscope explain`` answer through here."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..analysis.explain import (
    Explanation,
    ProgramStages,
    stages_of_capture,
    stages_of_file,
    stages_of_modules,
)
from ..analysis.explain import explain as link
from ..stages import Stage

if TYPE_CHECKING:  # pragma: no cover
    from ..backends.jaxpr_records import JaxprSources
    from ..backends.record import Capture
    from ..capture.target import Target
    from ..hlo.model import Module

__all__ = ["explain", "stages_of_target"]


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

    ``value`` is a :class:`~hloscope.backends.record.Capture` (a
    :class:`~hloscope.capture.jaxpr_lines.SourcedCapture` brings the jaxpr's lines), a
    :class:`~hloscope.capture.target.Target` or TARGET string (resolving a script runs it; a
    ``SCRIPT.py:FUNCTION`` target without ``jaxpr`` is traced once more in a child process
    for the line of each jaxpr equation, :func:`~hloscope.capture.jaxpr_lines.capture_for_target`,
    cached with the target's capture, so the jaxpr is there on a cold cache too), or an HLO
    :class:`Module` (optimized, or with ``before=`` its module before optimization). ``module``
    picks a module of a multi-module target (a name, or the :class:`Module`
    :meth:`~hloscope.capture.target.Target.choose_module` chose); ``jaxpr`` gives the jaxpr's
    sources explicitly. An ``X.after_optimizations.txt`` file is read with the
    ``X.before_optimizations.txt`` beside it, a dump's optimized module with the HLO before
    optimization of the same compilation. ``line="FILE:N"`` or ``kernel="NAME"`` narrow the
    result (:meth:`Explanation.focus_line`, :meth:`Explanation.focus_kernel`).
    """
    from ..capture.target import Target, TargetKind

    if isinstance(value, (str, os.PathLike)):
        value = Target.resolve(value)
    if isinstance(value, Target) and value.kind is TargetKind.FUNCTION and jaxpr is None:
        from ..capture.jaxpr_lines import capture_for_target

        value = capture_for_target(value)
    if isinstance(value, Target):
        stages = stages_of_target(value, module, jaxpr)
        return link(stages, line=line, kernel=kernel)
    return link(value, line=line, kernel=kernel, before=before, jaxpr=jaxpr)


def stages_of_target(
    target: Target, module: str | Module | None = None, jaxpr: JaxprSources | None = None
) -> ProgramStages:
    """The stages of ``target``'s module (``module``: a name, or the chosen :class:`Module`):
    a function's or saved capture's stages from its capture (with the jaxpr's lines when saved),
    an HLO file's from the file (and the one before optimization beside it), a dump's optimized
    module with the module before optimization of the same compilation."""
    from ..capture.target import TargetKind
    from ..hlo.model import Module

    if target.kind in (TargetKind.FUNCTION, TargetKind.CAPTURE):
        from ..capture.jaxpr_lines import saved_capture_for_target

        return stages_of_capture(saved_capture_for_target(target), jaxpr)
    chosen = module if isinstance(module, Module) else None
    name = module if isinstance(module, str) else None
    if target.kind is TargetKind.HLO_FILE:
        return stages_of_file(chosen or target.main_module(Stage.OPTIMIZED_HLO, name), target.path)
    after = chosen or target.main_module(Stage.OPTIMIZED_HLO, name)
    return stages_of_modules(_dump_before(target, after), after, "a dump folder")


def _dump_before(target: Target, after: Module) -> Module | None:
    """The module before optimization of the same compilation as ``after`` (the same dump
    module id, found by the file ``after`` was read from; else the main module of its name)."""
    from ..capture.target import TargetError

    path = after.source.path if after.source is not None else None
    for each in target.dump().modules:
        if each.after_file is not None and each.after_file.location == path:
            return each.before()
    try:
        return target.main_module(Stage.HLO, after.name)
    except TargetError:
        return None

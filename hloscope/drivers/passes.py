"""The pass timeline of what a TARGET names: a dump folder's module (the one every command
reads), a capture's snapshots, or a path to either, opened and handed to
:func:`hloscope.analysis.passes.pass_timeline`, which reads snapshots and opens nothing
(``hloscope.pass_timeline`` answers through here)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..analysis.errors import PassesError
from ..analysis.passes import PassTimeline, dump_module_of
from ..analysis.passes import pass_timeline as timeline_of
from ..stages import Stage

if TYPE_CHECKING:  # pragma: no cover
    from ..backends.record import Capture
    from ..capture.target import Target
    from ..dump.index import DumpIndex, DumpModule
    from ..dump.passes import PassStep
    from ..hlo.model import Module

__all__ = ["pass_timeline"]


def pass_timeline(
    steps: Capture | DumpModule | DumpIndex | Target | str | os.PathLike[str] | Iterable[PassStep],
    *,
    module: str | Module | None = None,
    every_pass: bool = True,
    name: str | None = None,
) -> PassTimeline:
    """The :class:`~hloscope.analysis.passes.PassTimeline` of per-pass snapshots.

    ``steps`` is what :func:`hloscope.analysis.passes.pass_timeline` takes (a capture made with
    ``passes=...``, a dump's module or index, the snapshots themselves), or a dump folder or
    capture Target or path. Of a Target, the module is the one every command reads
    (:meth:`~hloscope.capture.target.Target.choose_module`: ``module`` names one, else the
    main module); ``module`` may also be that chosen :class:`Module` itself.
    ``every_pass=False`` says that not every pass was dumped (a narrower pass regex), so a
    missing snapshot proves nothing and no pass is said to have changed nothing from that.
    """
    from ..capture.target import Target

    if isinstance(steps, (str, os.PathLike)):
        steps = Target.resolve(steps)
    if isinstance(steps, Target):
        steps = _steps_of_target(steps, module)
    return timeline_of(steps, module=module, every_pass=every_pass, name=name)


def _steps_of_target(
    target: Target, module: str | Module | None
) -> Capture | DumpModule | DumpIndex:
    """A dump's module with its snapshots (the index when no optimized module chooses one),
    or a capture's; one HLO file holds no snapshots: :class:`PassesError`."""
    from ..capture.target import TargetError, TargetKind
    from ..hlo.model import Module

    if target.kind in (TargetKind.DUMP, TargetKind.SCRIPT):
        index = target.dump()
        chosen = module
        if not isinstance(chosen, Module):
            try:
                chosen = target.main_module(Stage.OPTIMIZED_HLO, chosen)
            except TargetError:  # snapshots without the optimized module
                chosen = None
        return dump_module_of(index, chosen) if chosen is not None else index
    if target.kind in (TargetKind.CAPTURE, TargetKind.FUNCTION):
        return target.capture()
    raise PassesError(
        f"{target.spec}: one HLO file holds one stage, not the module after each pass "
        "(give a dump folder made with --xla_dump_hlo_pass_re=.* or a capture)"
    )

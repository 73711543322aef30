"""The offline ledger of what a TARGET names: a dump folder, a capture folder or an HLO text
file, opened and its modules handed to :mod:`hloscope.analysis.recompiles` (a script is run
instead: :mod:`.script_recompiles`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..analysis.recompiles import Ledger, ledger_of_dump, ledger_of_modules

if TYPE_CHECKING:  # pragma: no cover
    from ..capture.target import Target

__all__ = ["ledger_of_target"]


def ledger_of_target(target: Target) -> Ledger:
    """The offline ledger of a resolved :class:`~hloscope.capture.target.Target` that is a
    dump folder, a capture folder or an HLO text file (scripts:
    :func:`~.script_recompiles.recompiles_of_script`)."""
    from ..capture.target import TargetError, TargetKind

    if target.kind in (TargetKind.DUMP, TargetKind.SCRIPT):
        return ledger_of_dump(target.dump())
    try:
        modules = target.modules("before")
    except TargetError:  # a saved capture without the unoptimized stage
        modules = target.modules("after")
    return ledger_of_modules(modules)

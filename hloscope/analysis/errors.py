"""The errors of the analyses: a name or a stage the analysed module does not have.

- :class:`ExplainError`: :func:`hloscope.analysis.explain.explain` was given a target with no
  HLO to explain (exit status 1); its :class:`FocusNotFound` was asked to focus on a line or a
  kernel that is not there, or on a line and a kernel at once (a usage error, exit status 2).
- :class:`PassesError`: :mod:`hloscope.analysis.passes` found no per-pass snapshots to read, or
  was asked for a pass, module or instruction the timeline does not hold (exit status 1).
- :class:`StageNotInFile`: ``check`` was asked for an explicit stage that an HLO file does not
  hold and no file beside it does, raised by ``file_modules_at_stage`` of
  :mod:`hloscope.analysis.unsupported.hlo_check` (exit status 2).
- :class:`CatalogueError`: an explain-error kind's word file (``kinds/NAME.toml``) is missing,
  malformed, or lacks a pattern or text its module uses: a fault of the installed package.
- :class:`OpProfileMismatch`: ``profile TRACE TARGET`` was given a TARGET whose module is not
  the one the trace recorded, or a module name the trace does not hold (exit status 2).
"""

from __future__ import annotations

__all__ = [
    "CatalogueError",
    "CompileTimeError",
    "ExplainError",
    "FocusNotFound",
    "NoCompileTimes",
    "NoKeptRun",
    "OpProfileMismatch",
    "PassesError",
    "StageNotInFile",
]

from ..errors import HloscopeError, UsageProblem


class ExplainError(HloscopeError):
    """A focus that names nothing (no such line or kernel), or a target with no HLO to explain."""


class FocusNotFound(ExplainError, UsageProblem):
    """A ``--line`` or ``--kernel`` that names nothing in the module (or both at once): what
    was typed cannot be used, like a kernel name that matches nothing elsewhere."""


class CatalogueError(HloscopeError):
    """A kind's word file is missing, malformed, or lacks a name its module uses."""


class PassesError(HloscopeError):
    """No per-pass snapshots to read, or a pass or instruction the timeline does not hold."""


class StageNotInFile(UsageProblem):
    """An explicit stage that an HLO file does not hold and no file beside it does."""


class OpProfileMismatch(UsageProblem):
    """A trace and a module that do not belong together (or a module the trace lacks)."""


class CompileTimeError(HloscopeError):
    """A target whose compile time cannot be told."""


class NoCompileTimes(CompileTimeError, UsageProblem):
    """A target that holds no compile (one HLO file): what was typed cannot be used."""


class NoKeptRun(UsageProblem):
    """``recompiles --vs DIR`` names a folder that holds no run kept with ``-o DIR``."""

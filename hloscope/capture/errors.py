"""The errors of capturing a script or reading a target: something the user can fix, in one line.

Capture problems are ordinary: a script that raises, hangs or is missing, a ``SCRIPT.py:FUNCTION``
whose function cannot be called without example arguments. Every error here derives from
:class:`~hloscope.backends.errors.CaptureError`, which lives with the compilers' errors in
:mod:`hloscope.backends.errors` (the compile-side errors are imported here too, so
``hloscope.capture.errors.CaptureError`` still names it):

- :class:`ScriptImportError`: a ``SCRIPT.py:FUNCTION`` that cannot be loaded in this process,
  raised by :func:`hloscope.capture.script_loader.load_function` (exit status 1).
- :class:`ScriptReentryError`: loading the script would run the calling line again.
- :class:`ScriptTargetError`: a ``SCRIPT.py:FUNCTION`` the script cannot serve (exit status 2).
- :class:`TargetError`: a TARGET that names nothing readable, or a module or stage it does not
  hold, raised by :class:`~hloscope.capture.target.Target` (exit status 1).
- :class:`TargetNotFound`: a TARGET path that does not exist, or a module name that matches
  none of the target's (exit status 2).
"""

from __future__ import annotations

__all__ = [
    "TpuCompileError",
    "CaptureError",
    "CaptureUsageError",
    "ScriptImportError",
    "ScriptReentryError",
    "ScriptTargetError",
    "MissingFramework",
    "UnsupportedFramework",
    "MissingStageError",
    "NotHloStageError",
    "TargetError",
    "TargetNotFound",
    "XlaApiUnavailable",
    "UnsupportedJaxlib",
    "XlaParseFailed",
    "XlaCompileFailed",
]

from ..backends.errors import (
    CaptureError,
    CaptureUsageError,
    MissingFramework,
    MissingStageError,
    NotHloStageError,
    TpuCompileError,
    UnsupportedFramework,
    UnsupportedJaxlib,
    XlaApiUnavailable,
    XlaCompileFailed,
    XlaParseFailed,
)
from ..errors import UsageProblem


class ScriptImportError(CaptureError):
    """A ``SCRIPT.py:FUNCTION`` that cannot be loaded in this process: no such script, an
    exception while it imports, no function of that name, or no usable example arguments
    (:func:`hloscope.capture.script_loader.load_function`). Exceptions the function raises
    later, while it is traced or timed, are not this."""


class ScriptReentryError(ScriptImportError):
    """Loading the script hloscope was asked about would run the calling line again."""


class ScriptTargetError(ScriptImportError, UsageProblem):
    """A ``SCRIPT.py:FUNCTION`` the script cannot serve as asked: no function of that name, no
    usable example arguments. The command line's target is wrong (exit status 2), whether
    the source said so before any capture or the capture's child found it."""


class TargetError(CaptureError):
    """A TARGET that names nothing readable, or a module or stage it does not hold."""


class TargetNotFound(TargetError, UsageProblem):
    """A TARGET path that does not exist, or a module name that matches none of the target's."""

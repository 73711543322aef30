"""The errors of capturing: something the user can fix, said in one line.

Capture problems are ordinary: a script that raises, hangs or is missing, a ``SCRIPT.py:FUNCTION``
whose function cannot be called without example arguments, a ``tf.function`` without
``jit_compile=True``. :class:`CaptureError` carries a message that already reads well as a CLI
error line, so the command line prints ``error: <message>`` and exits non-zero without a traceback.
Every error here derives from it:

- :class:`CaptureError`: a capture failed (the script raised, hung or was killed; XLA wrote
  nothing), raised by :func:`hloscope.capture.capture` and the script runner (exit status 1).
- :class:`CaptureUsageError`: a capture that cannot start as asked: no such script, a timeout
  that is not positive, a pass pattern that does not compile (exit status 2).
- :class:`ScriptImportError`: a ``SCRIPT.py:FUNCTION`` that cannot be loaded in this process,
  raised by :func:`hloscope.capture.script_loader.load_function` (exit status 1).
- :class:`MissingFramework`: jax or TensorFlow is needed and cannot be imported, raised by
  :mod:`~hloscope.capture.frameworks`' ``require_*`` functions, naming the extra to install.
- :class:`UnsupportedFramework`: the installed jax or TensorFlow is older than the oldest
  version supported, raised by :func:`~hloscope.capture.frameworks.check_version`.
- :class:`MissingStageError`: a stage a :class:`~hloscope.capture.inprocess.Capture` does not
  hold (a TensorFlow capture has no jaxpr); also a ``KeyError``.
- :class:`NotHloStageError`: a stage asked for as HLO whose text is not HLO (jaxpr,
  StableHLO); also a ``ValueError``.
- :class:`TargetError`: a TARGET that names nothing readable, or a module or stage it does not
  hold, raised by :class:`~hloscope.capture.target.Target` (exit status 1).
- :class:`TargetNotFound`: a TARGET path that does not exist, or a module name that matches
  none of the target's (exit status 2).

:mod:`hloscope.capture.jaxlib_adapter` still defines its own four (``XlaApiUnavailable``,
``UnsupportedJaxlib``, ``XlaParseFailed``, ``XlaCompileFailed``) while that module is reworked.
"""

from __future__ import annotations

__all__ = [
    "CaptureError",
    "CaptureUsageError",
    "ScriptImportError",
    "MissingFramework",
    "UnsupportedFramework",
    "MissingStageError",
    "NotHloStageError",
    "TargetError",
    "TargetNotFound",
]

from ..errors import HloscopeError, UsageProblem


class CaptureError(HloscopeError):
    """Capturing failed for a reason the user can act on.

    ``str(error)`` is one line. ``detail`` optionally holds more (the script's stderr tail, the
    convention for example arguments) for ``--verbose`` output or logs; ``output_dir`` names the
    folder where partial results were kept, when there is one.
    """

    def __init__(self, message: str, *, detail: str = "", output_dir: str | None = None) -> None:
        super().__init__(" ".join(message.split("\n")).strip())
        self.detail = detail
        self.output_dir = output_dir

    def one_line(self) -> str:
        """The message as a single line (what the CLI prints after ``error:``)."""
        return str(self)


class CaptureUsageError(CaptureError, UsageProblem):
    """A capture that cannot start as asked: no such script, a folder where a script belongs,
    a timeout that is not positive, a pass pattern that does not compile (exit status 2)."""


class ScriptImportError(CaptureError):
    """A ``SCRIPT.py:FUNCTION`` that cannot be loaded in this process: no such script, an
    exception while it imports, no function of that name, or no usable example arguments
    (:func:`hloscope.capture.script_loader.load_function`). Exceptions the function raises
    later, while it is traced or timed, are not this."""


class MissingFramework(CaptureError):
    """jax or TensorFlow is needed for a capture but cannot be imported.

    ``framework`` is ``"jax"`` or ``"TensorFlow"``, ``extra`` the ``hloscope[...]`` extra that
    installs it; the message is one line naming both.
    """

    def __init__(self, framework: str, extra: str, reason: str = "is not installed") -> None:
        self.framework = framework
        self.extra = extra
        super().__init__(f"{framework} {reason}: pip install '{extra}'")


class UnsupportedFramework(CaptureError):
    """The installed jax or TensorFlow is older than the oldest version hloscope supports."""


class MissingStageError(CaptureError, KeyError):
    """A stage this capture does not hold (a TensorFlow capture has no jaxpr)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return Exception.__str__(self)


class NotHloStageError(CaptureError, ValueError):
    """A stage asked for as HLO whose text is not HLO (jaxpr, StableHLO)."""


class TargetError(CaptureError):
    """A TARGET that names nothing readable, or a module or stage it does not hold."""


class TargetNotFound(TargetError, UsageProblem):
    """A TARGET path that does not exist, or a module name that matches none of the target's."""

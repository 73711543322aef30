"""The one error type of capturing: something the user can fix, said in one line.

Capture problems are ordinary: a script that raises, hangs or is missing, a ``SCRIPT.py:FUNCTION``
whose function cannot be called without example arguments, a ``tf.function`` without
``jit_compile=True``. :class:`CaptureError` carries a message that already reads well as a CLI
error line, so the command line prints ``error: <message>`` and exits non-zero without a traceback.
"""

from __future__ import annotations

__all__ = ["CaptureError", "CaptureUsageError", "ScriptImportError"]

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

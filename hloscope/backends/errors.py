"""The errors of compiling: a compiler, a framework or a capture the user can fix, in one line.

:class:`CaptureError` carries a message that already reads well as a CLI error line, so the
command line prints ``error: <message>`` and exits non-zero without a traceback. The errors a
backend (:mod:`hloscope.backends`) raises:

- :class:`CaptureError`: a capture or compile failed (exit status 1); the root of capture/'s
  own errors too (:mod:`hloscope.capture.errors`).
- :class:`CaptureUsageError`: a capture that cannot start as asked: a timeout that is not
  positive, a pass pattern that does not compile, a device this backend cannot compile for
  (exit status 2).
- :class:`MissingFramework`: jax or TensorFlow is needed and cannot be imported, raised by
  :mod:`~hloscope.backends.frameworks`' ``require_*`` functions, naming the extra to install.
- :class:`UnsupportedFramework`: the installed jax or TensorFlow is older than the oldest
  version supported, raised by :func:`~hloscope.backends.frameworks.check_version`.
- :class:`MissingStageError`: a stage a :class:`~hloscope.backends.record.Capture` does not
  hold (a TensorFlow capture has no jaxpr); also a ``KeyError``.
- :class:`NotHloStageError`: a stage asked for as HLO whose text is not HLO (jaxpr,
  StableHLO); also a ``ValueError``.
- :class:`XlaApiUnavailable`: a private jaxlib API hloscope needs is not where any known
  jaxlib keeps it, raised by :mod:`~hloscope.backends._jaxlib` (the one module that
  reads jaxlib's private APIs).
- :class:`UnsupportedJaxlib`: the installed jaxlib is older than supported (or newer than
  tested, with ``HLOSCOPE_STRICT_JAXLIB`` set).
- :class:`XlaParseFailed`: XLA's own parser rejected an HLO text; carries XLA's message and the
  line and column it names.
- :class:`XlaCompileFailed`: XLA's compiler rejected a module; carries XLA's message.
- :class:`TpuCompileError`: XLA:TPU refused to compile the program for the device asked for.
- :class:`VariantNotApplicable`: a change ``hloscope try`` was asked to make cannot be made to
  the program (a mesh that does not divide a dimension), raised by
  :mod:`~hloscope.backends.variant_compile`; the message says why.
"""

from __future__ import annotations

__all__ = [
    "TpuCompileError",
    "VariantNotApplicable",
    "CaptureError",
    "CaptureUsageError",
    "MissingFramework",
    "UnsupportedFramework",
    "MissingStageError",
    "NotHloStageError",
    "XlaApiUnavailable",
    "UnsupportedJaxlib",
    "XlaParseFailed",
    "XlaCompileFailed",
]

import re
from collections.abc import Sequence

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


# ---- jaxlib's private APIs (raised by _jaxlib.py) ----


class XlaApiUnavailable(HloscopeError, RuntimeError):
    """A private jaxlib API hloscope needs is not where any known jaxlib version keeps it."""

    def __init__(
        self,
        symbol: str,
        jaxlib_version: str | None,
        searched: Sequence[str],
        detail: str = "",
        supported: str = "",
    ) -> None:
        self.symbol = symbol
        self.jaxlib_version = jaxlib_version
        self.searched = tuple(searched)
        where = ", ".join(self.searched) or "(nowhere)"
        installed = f"jaxlib {jaxlib_version}" if jaxlib_version else "jaxlib is not installed"
        message = (
            f"XLA API '{symbol}' is unavailable ({installed}; looked in {where}). "
            f"hloscope supports jaxlib {supported or 'the versions in its docs'}; "
            "install one of those or update hloscope/backends/_jaxlib.py."
        )
        if detail:
            message += f" ({detail})"
        super().__init__(message)


class UnsupportedJaxlib(HloscopeError, RuntimeError):
    """The installed jaxlib is older than supported, or newer than tested and strict mode is on."""


_LOCATION = re.compile(r"was parsing (\d+):(\d+): error: ([^\n]*)")


class XlaParseFailed(HloscopeError, RuntimeError):
    """XLA's own parser rejected an HLO text.

    ``xla_message`` is XLA's message exactly as it gave it (status code, location, caret). When
    the message has a location (``was parsing 12:7: error: ...``), ``line`` and ``column`` hold
    it (1-based) and ``reason`` the first error's text; otherwise they are ``None``.
    """

    def __init__(self, xla_message: str) -> None:
        self.xla_message = xla_message
        found = _LOCATION.search(xla_message)
        self.line: int | None = int(found.group(1)) if found else None
        self.column: int | None = int(found.group(2)) if found else None
        self.reason: str | None = found.group(3) if found else None
        super().__init__(xla_message)


class XlaCompileFailed(HloscopeError, RuntimeError):
    """XLA's compiler (or its HLO-to-MLIR importer) rejected a module; carries XLA's message."""


class TpuCompileError(CaptureError):
    """XLA:TPU refused to compile the program for the device asked for (its own words)."""


class VariantNotApplicable(CaptureUsageError):
    """A change that cannot be made to this program (the message says why)."""

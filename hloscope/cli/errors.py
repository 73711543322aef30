"""The errors of the command line itself: what only a command, not the library, can refuse.

- :class:`CliError`: options that make no sense together, or a value a command cannot use,
  raised by the commands (``--sort`` with ``--json``, a bench option without a device...)
  (exit status 2).
- :class:`NotRecognisedError`: ``hloscope explain-error`` read a log that holds no message any
  recogniser knows (exit status 2: input hloscope cannot read as what it was asked to read).

The command group in :mod:`hloscope.cli._app` catches every
:class:`~hloscope.errors.HloscopeError`, these included, prints its one line and exits with its
``exit_code``.
"""

from __future__ import annotations

__all__ = ["CliError", "NotRecognisedError"]

from typing import ClassVar

from ..errors import ExitStatus, HloscopeError, UsageProblem


class CliError(UsageProblem):
    """Options that make no sense together, or a value a command cannot use."""


class NotRecognisedError(HloscopeError):
    """The log holds no message any recogniser knows (exit status 2: input hloscope cannot
    read as what it was asked to read)."""

    exit_code: ClassVar[int] = ExitStatus.BAD_INPUT

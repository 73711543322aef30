"""The one root of every error hloscope raises on purpose: :class:`HloscopeError`.

An hloscope error is something the user can act on (bad HLO text, a dump file that is not what
its name says, a script that crashed, an option that makes no sense), so each one knows how to
say itself in one line and which exit status the command line should end with, the way click's
exceptions carry theirs. The CLI catches :class:`HloscopeError` by class and prints
:meth:`~HloscopeError.one_line`; nothing else decides an exit status.

Exit statuses, shared by every command:

====  ==================================================================================
0     done (a diff that found differences is still 0)
1     an error the user can fix (a missing file, a failed capture, a bad option value)
2     unreadable input: HLO or dump text that does not follow its grammar
3     a check failed on purpose (``--fail-on``, ``--fail-over``, unsupported ops found)
====  ==================================================================================
"""

from __future__ import annotations

__all__ = ["HloscopeError", "ExitStatus"]

from enum import IntEnum


class ExitStatus(IntEnum):
    """The exit statuses of the ``hloscope`` command line (see the module docstring)."""

    OK = 0
    ERROR = 1
    BAD_INPUT = 2
    CHECK_FAILED = 3


class HloscopeError(Exception):
    """Base class of every error hloscope raises for a reason the user can act on.

    ``exit_code`` is the status the command line exits with when this error ends a command;
    subclasses set their own. :meth:`one_line` is the message the CLI prints, on one line.
    """

    exit_code: int = ExitStatus.ERROR

    def one_line(self) -> str:
        """The message as a single line (what the CLI prints to stderr)."""
        text = " ".join(str(self).split("\n")).strip()
        return text or type(self).__name__

"""The one root of every error hloscope raises on purpose: :class:`HloscopeError`, and the
errors of the root modules.

An hloscope error is something the user can act on (bad HLO text, a dump file that is not what
its name says, a script that crashed, an option that makes no sense), so each one knows how to
say itself in one line and which exit status the command line should end with, the way click's
exceptions carry theirs. The CLI catches :class:`HloscopeError` by class and prints
:meth:`~HloscopeError.one_line`; nothing else decides an exit status.

Exit statuses, shared by every command (one rule, tested command by command in
``tests/test_cli_exit_codes.py``):

====  ==================================================================================
0     done (a diff that found differences is still 0)
1     the work failed: a script that crashed or hung, a capture, compile or run that
      failed, a folder that holds no XLA dump, module files left out as unreadable
2     the command line cannot be used as given (click's convention for usage errors): an
      unknown option, a missing or bad option value, options that exclude each other, a
      path that does not exist or is of the wrong kind, a module, kernel or column name
      that matches nothing; and input text that does not follow its grammar
3     a check failed on purpose (``--fail-on``, ``--fail-over``, unsupported ops found)
====  ==================================================================================

Each layer keeps its own errors in its own ``errors.py`` (``hlo/errors.py``, ``dump/errors.py``,
``capture/errors.py``, ``analysis/errors.py``, ``bench/errors.py``, ``render/errors.py``,
``cli/errors.py``), each deriving from the classes here; the module that raises an error
re-exports it, so it can be imported from either place. This module holds the root and the
errors of the root modules:

- :class:`HloscopeError`: the base class; exit status 1 unless a subclass says otherwise.
- :class:`UsageProblem`: the base of every "the command line cannot be used as given" error,
  exit status 2.
- :class:`FileFormatError`: a file (or text) that cannot be read as what it should be, at a
  place in it (``path:line:column``): the base of the HLO parser's and the dump readers' errors,
  exit status 2.
- :class:`UnknownStageError`: :meth:`hloscope.stages.Stage.parse` was given a name that is no
  stage's name or alias.
- :class:`MissingExtra`: a feature needs an optional extra that is not installed (``s3://``
  paths need ``hloscope[cloud]``, ``fleet --scheduler`` needs ``hloscope[dask]``).
- :class:`MissingPandas`: a DataFrame was asked for (:func:`hloscope.dataframes.require_pandas`)
  and pandas is not installed.

:class:`hloscope.testing.CompileLimitExceeded` stays in ``testing.py``: that module sits above
every layer and the error carries a ``Ledger`` from ``analysis/``, which a root module cannot name.
"""

from __future__ import annotations

__all__ = [
    "HloscopeError",
    "UsageProblem",
    "ExitStatus",
    "FileFormatError",
    "UnknownStageError",
    "MissingExtra",
    "MissingPandas",
]

from enum import IntEnum

TYPE_CHECKING = False  # typing itself costs every command's start ~5 ms
if TYPE_CHECKING:
    from typing import Any, ClassVar


class ExitStatus(IntEnum):
    """The exit statuses of the ``hloscope`` command line (see the module docstring)."""

    OK = 0
    ERROR = 1
    BAD_INPUT = 2
    #: The same status as BAD_INPUT, by the name that says why a command line earns it.
    USAGE = 2
    CHECK_FAILED = 3


class HloscopeError(Exception):
    """Base class of every error hloscope raises for a reason the user can act on.

    ``exit_code`` is the status the command line exits with when this error ends a command;
    subclasses set their own. :meth:`one_line` is the message the CLI prints, on one line.
    """

    exit_code: ClassVar[int] = ExitStatus.ERROR

    def one_line(self) -> str:
        """The message as a single line (what the CLI prints to stderr)."""
        text = " ".join(str(self).split("\n")).strip()
        return text or type(self).__name__


class UsageProblem(HloscopeError):
    """What the command line asked for cannot be used: a path that does not exist or is of the
    wrong kind, a name or value that matches nothing, options that exclude each other.

    Each layer's error for such a case derives from this class too, so the exit status (2,
    click's own for usage errors) is decided once, here, whichever layer noticed.
    """

    exit_code: ClassVar[int] = ExitStatus.USAGE


class FileFormatError(HloscopeError, ValueError):
    """A file (or text) that cannot be read as what it should be, at a place in it: ``path``
    and, where known, the 1-based ``line`` and ``column``, said as a compiler does, with the
    offending ``source_line`` and a caret under the column when it is given::

        model.hlo:12:17: error: expected ')' after operands
          %add.3 = f32[4]{0} add(%x, %y
                          ^
    """

    exit_code: ClassVar[int] = ExitStatus.BAD_INPUT

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
        source_line: str | None = None,
    ) -> None:
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        self.source_line = source_line
        super().__init__(self.render())

    @property
    def location(self) -> str:
        """``path:line:column`` with whatever parts are known."""
        parts = [self.path or "<string>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def one_line(self) -> str:
        """The message on a single line, for CLIs and logs."""
        return f"{self.location}: error: {' '.join(self.message.split())}"

    def render(self) -> str:
        """What the error says (``str(error)``): its one line, then the source line and a caret
        where it has one."""
        text = self.one_line()
        if self.source_line is not None:
            shown = self.source_line.rstrip("\r\n")
            if len(shown) > 200:  # keep megabyte constants out of error messages
                start = max(0, (self.column or 1) - 100)
                shown = shown[start : start + 200]
                caret_col = (self.column or 1) - start
            else:
                caret_col = self.column or 1
            text += "\n  " + shown + "\n  " + " " * (caret_col - 1) + "^"
        return text

    def keywords(self) -> dict[str, Any]:
        """The keywords the error was made with besides its message."""
        return {k: getattr(self, k) for k in ("path", "line", "column", "source_line")}

    def __reduce__(self):  # picklable across processes (multiprocessing, pytest-xdist)
        return (_rebuild_file_format_error, (type(self), self.message, self.keywords()))


def _rebuild_file_format_error(
    cls: type[FileFormatError], message: str, keywords: dict[str, Any]
) -> FileFormatError:
    return cls(message, **keywords)


class UnknownStageError(HloscopeError, ValueError):
    """A stage name that is none of :class:`~hloscope.stages.Stage`'s names or aliases."""


class MissingExtra(HloscopeError, ImportError):
    """A feature needs an optional part of hloscope that is not installed: ``extra`` names it
    (``pip install 'hloscope[EXTRA]'``), and the message says what asked for it."""

    def __init__(self, message: str, *, extra: str) -> None:
        self.extra = extra
        super().__init__(f"{message}: install it with pip install 'hloscope[{extra}]'")

    def __reduce__(self):
        # Raised inside Dask workers too: rebuild from the words the user will read.
        return (_rebuild_missing_extra, (self.args[0], self.extra))


def _rebuild_missing_extra(text: str, extra: str) -> MissingExtra:
    error = MissingExtra.__new__(MissingExtra)
    error.extra = extra
    Exception.__init__(error, text)
    return error


class MissingPandas(HloscopeError, ImportError):
    """A DataFrame was asked for, and pandas is not installed."""

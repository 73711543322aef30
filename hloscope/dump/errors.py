"""The one exception the dump layer raises: :class:`DumpFormatError`.

- :class:`DumpFormatError`: a dump file that cannot be read as what its name says it is (a
  binary file, bytes that are not UTF-8, a missing or unreadable file), raised by the dump
  readers with the file and, when known, the line (exit status 2).
"""

from __future__ import annotations

__all__ = ["DumpFormatError"]

from typing import ClassVar

from ..errors import ExitStatus, HloscopeError


class DumpFormatError(HloscopeError, ValueError):
    """A dump file that cannot be read as what its name says it is.

    Raised only when nothing sensible can be read (a binary file, bytes that are not UTF-8, a
    missing or unreadable file). Text that merely deviates from the expected layout is not an
    error: parsers keep what they understood and list the rest as warnings.
    """

    exit_code: ClassVar[int] = ExitStatus.BAD_INPUT

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None) -> None:
        self.message = message
        self.path = path
        self.line = line
        super().__init__(self.one_line())

    @property
    def location(self) -> str:
        where = self.path or "<string>"
        return f"{where}:{self.line}" if self.line is not None else where

    def one_line(self) -> str:
        """The message on a single line, for CLIs and logs."""
        return f"{self.location}: error: {' '.join(self.message.split())}"

    def __reduce__(self):  # picklable across processes
        return (_rebuild, (self.message, self.path, self.line))


def _rebuild(message: str, path: str | None, line: int | None) -> DumpFormatError:
    return DumpFormatError(message, path=path, line=line)

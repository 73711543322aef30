"""The one exception the dump layer raises: :class:`DumpFormatError`.

- :class:`DumpFormatError`: a dump file that cannot be read as what its name says it is (a
  binary file, bytes that are not UTF-8, a missing or unreadable file), raised by the dump
  readers with the file and, when known, the line (exit status 2).
"""

from __future__ import annotations

__all__ = ["DumpFormatError"]

from ..errors import FileFormatError


class DumpFormatError(FileFormatError):
    """A dump file that cannot be read as what its name says it is.

    Raised only when nothing sensible can be read (a binary file, bytes that are not UTF-8, a
    missing or unreadable file). Text that merely deviates from the expected layout is not an
    error: parsers keep what they understood and list the rest as warnings.
    """

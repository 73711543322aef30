"""The errors of the HLO layer: text that is not HLO, and names a module does not have.

- :class:`HloParseError`: text that is not valid HLO; raised by the parser with the file, line
  and column, and rendered with a caret under the offending spot (exit status 2).
- :class:`DecodeError`: a shape, attribute or literal that does not follow its grammar; raised by
  the small decoders with an offset into the text they were given, and turned by the parser
  into an :class:`HloParseError` that points into the original file (exit status 2).
- :class:`GraphError`: a graph could not be selected or drawn; the base of the graph errors of
  this layer and of ``render/`` (exit status 1).
- :class:`GraphNameError`: a computation, instruction or fusion name that the module does not
  have, raised by :mod:`hloscope.hlo.graph_selection` (exit status 2).
"""

from __future__ import annotations

__all__ = ["HloParseError", "DecodeError", "GraphError", "GraphNameError"]

from typing import ClassVar

from ..errors import ExitStatus, FileFormatError, HloscopeError, UsageProblem


class HloParseError(FileFormatError):
    """Text that is not valid HLO: where the problem is (``path``, 1-based ``line`` and
    ``column``) and the offending source line, shown with a caret under the column."""


class DecodeError(HloscopeError, ValueError):
    """A value (shape, attribute, literal...) that does not follow its grammar.

    Raised by the small decoders with ``offset``, a 0-based index into the text they were given.
    The parser and the lazy attribute mapping turn it into an :class:`HloParseError` that points
    at the right line and column of the original file.
    """

    exit_code: ClassVar[int] = ExitStatus.BAD_INPUT

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


class GraphError(HloscopeError):
    """A graph could not be selected or drawn (an unknown name, ``dot`` missing or failing)."""


class GraphNameError(GraphError, UsageProblem):
    """A computation, instruction or fusion name that the module does not have."""

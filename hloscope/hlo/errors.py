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

from ..errors import ExitStatus, HloscopeError, UsageProblem


class HloParseError(HloscopeError, ValueError):
    """Text that is not valid HLO.

    Carries where the problem is (``path``, 1-based ``line`` and ``column``) and the offending
    source line, and renders as a compiler-style message with a caret::

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

    def __reduce__(self):  # keep pickling (multiprocessing, pytest-xdist) working
        return (_rebuild, (self.message, self.path, self.line, self.column, self.source_line))


def _rebuild(message, path, line, column, source_line):
    return HloParseError(message, path=path, line=line, column=column, source_line=source_line)


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

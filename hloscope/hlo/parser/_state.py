"""What the bulk path and the sugar expansions need of the parser reading a module.

:class:`._careful.ModuleParser` is that parser; the modules it calls into (:mod:`._bulk`,
:mod:`._sugar`) name it by this Protocol instead of importing it back, so the parser's
modules import one another one way only: ``_careful`` calls down into them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # pragma: no cover
    from ..errors import HloParseError
    from ..model import Computation, Instruction, Module, SourceText

__all__ = ["ParserState"]


class ParserState(Protocol):
    """The parser's lines, where it stands in them, and the module it is building."""

    lines: list[str]
    end: int
    source: SourceText
    module: Module | None
    nested: list[tuple[Instruction, list[str]]]
    split_rest: tuple[int, str] | None
    base_names: dict[int, str]
    cursor: tuple[int, int]
    deferred_attributes: list[tuple[str, ...]] | None

    def error(self, message: str, line_index: int, column: int = 1) -> HloParseError: ...

    def parse_closer(self, comp: Computation, i: int, stripped: str) -> None: ...

    def parse_inline_body(self, comp: Computation, lines: list[str]) -> None:
        """Read ``lines`` (a body and its closing ``}``) into ``comp`` with a parser of the
        same kind that adds to the same module."""
        ...

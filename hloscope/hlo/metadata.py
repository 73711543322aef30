"""Where an op came from: :class:`Metadata` (``metadata={...}``) and :class:`StackFrame`.

A leaf module (it imports nothing from hloscope) so that the data model and the attribute
decoders can both use these types without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

__all__ = ["Metadata", "StackFrame", "EMPTY_METADATA"]


@dataclass(frozen=True, slots=True)
class StackFrame:
    """One Python frame: where an op came from."""

    file: str
    line: int
    function: str = ""
    column: int = 0
    end_line: int = 0
    end_column: int = 0

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}"
        return f"{where} ({self.function})" if self.function else where


class Metadata(NamedTuple):
    """``metadata={...}`` of an instruction (``OpMetadata``).

    A named tuple rather than a frozen dataclass: reports read the metadata of every
    instruction of modules with hundreds of thousands of them, and a tuple is made by one
    ``tuple.__new__`` call, without a frozen dataclass's ``object.__setattr__`` per field,
    immutable and hashable all the same.
    """

    op_type: str = ""
    op_name: str = ""
    source_file: str = ""
    source_line: int = 0
    source_end_line: int = 0
    source_column: int = 0
    source_end_column: int = 0
    profile_type: tuple[int, ...] = ()
    deduplicated_name: str = ""
    scheduling_name: str = ""
    stack_frame_id: int = 0

    @property
    def is_empty(self) -> bool:
        return not (self.op_type or self.op_name or self.source_file or self.stack_frame_id)


#: The metadata of an instruction that has none (shared: Metadata is immutable).
EMPTY_METADATA = Metadata()

"""Instructions by name, building only the computations a memory result reads.

A memory result looks up the instructions of the schedule and the producers of the buffers
live at the peak. Those run in the entry and the computations it calls for control flow
(``while``, ``call``, ``conditional``...), never inside a fused body, and a large module's
fused bodies hold most of its instructions: an index of every instruction builds them all,
which costs more than the parse. So the index starts from the scheduled computations and
reads the rest of the module only for a name it does not find there.

Instruction names are unique across a parsed module (the parser renames repeats as XLA's
does), so where a name is found does not change what it names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ...hlo.model import Computation, Instruction, Module

__all__ = ["InstructionIndex"]


class InstructionIndex:
    """``get(name)``: the module's instruction of that name (``None`` when it has none)."""

    __slots__ = ("module", "_scheduled", "_everything")

    def __init__(self, module: Module) -> None:
        self.module = module
        self._scheduled: dict[str, Instruction] | None = None
        self._everything: dict[str, Instruction] | None = None

    def get(self, name: str) -> Instruction | None:
        if self._scheduled is None:
            self._scheduled = _scheduled_index(self.module)
        found = self._scheduled.get(name)
        if found is not None:
            return found
        if self._everything is None:
            # A name outside the scheduled computations (another module's live range, a
            # fused instruction): only now is every body built.
            self._everything = {i.name: i for i in self.module.instructions()}
        return self._everything.get(name)

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None


def _scheduled_index(module: Module) -> dict[str, Instruction]:
    """Instructions of the entry and of every computation it reaches without entering a
    fusion, by name."""
    out: dict[str, Instruction] = {}
    entry = module.entry
    if entry is None:
        return out
    seen: set[int] = {id(entry)}
    stack: list[Computation] = [entry]
    while stack:
        computation = stack.pop()
        for instruction in computation.instructions:
            out[instruction.name] = instruction
            if instruction.opcode == "fusion":
                continue
            for called in instruction.called_computations:
                if id(called) not in seen:
                    seen.add(id(called))
                    stack.append(called)
    return out

"""What fills the memory figure a result reports, in named groups that sum to it exactly.

The figure is the result's ``peak_bytes``: XLA:TPU's ``peak_memory_in_bytes`` for a TPU
compile (what the chip reserves), the bytes XLA:TPU said it needed for a compile it refused,
else the live range's peak. It is split into

* **arguments**, one row per argument of the function (JAX names each entry parameter by its
  path, ``params['blocks'][0]['w1']``; the rows are the paths' first part, ``params``),
* **outputs** that are not the arguments' own buffers (donated ones are counted once, as
  arguments), one row per place in the user's code that made them,
* **constants**,
* **temporaries** in HBM, one row per source line (on-chip ``S(1)``/``S(2)`` buffers are not
  in HBM and not in the figure's temporaries),
* and, for XLA:TPU's figure, **XLA:TPU's own reservation**: what its figure holds beyond the
  arguments, outputs and temporaries (on-chip scratch it mirrors, alignment, fragmentation).

Each group's total is what the compile itself says (``memory_analysis()``'s sizes; the buffer
assignment's for a refused compile; the buffers live at the peak otherwise), taken in that
order and each capped by what is left of the figure, so that the groups add up to the figure.
A buffer XLA made with no metadata of its own (a ``copy`` or ``iota`` its passes inserted) is
named by the nearest operand that has some, never "(unknown)".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..provenance import source_of
from ._labels import argument_label, buffer_bytes, on_chip
from ._lookup import InstructionIndex
from ._result import BufferKind, MemorySource
from ._savings import input_output_alias

if TYPE_CHECKING:  # pragma: no cover
    from ...hlo.model import Instruction, Module
    from ._result import LiveBuffer, MemoryResult

__all__ = [
    "FillKind",
    "FillRow",
    "FillGroup",
    "fill_of",
    "argument_label",
    "origin_label",
    "on_chip",
    "buffer_bytes",
]


class FillKind(StrEnum):
    ARGUMENTS = "arguments"
    OUTPUTS = "outputs"
    CONSTANTS = "constants"
    TEMPORARIES = "temporaries"
    ON_CHIP = "on_chip"
    RESERVED = "reserved"


#: How each group is titled in words.
TITLES = {
    FillKind.ARGUMENTS: "arguments",
    FillKind.OUTPUTS: "outputs (not in the arguments' buffers)",
    FillKind.CONSTANTS: "constants",
    FillKind.TEMPORARIES: "temporaries",
    FillKind.ON_CHIP: "on-chip buffers (VMEM, SMEM) its live range counts",
    FillKind.RESERVED: "XLA:TPU's own reservation",
}


@dataclass(slots=True)
class FillRow:
    """One named part of a group: ``label`` (an argument, a source line, an op), its bytes,
    and how many buffers."""

    label: str
    bytes: int
    buffers: int


@dataclass(slots=True)
class FillGroup:
    """A group of the figure: its ``kind``, bytes and named ``rows`` (summing to ``bytes``)."""

    kind: str
    bytes: int
    rows: list[FillRow] = field(default_factory=list)
    title: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "title": self.title,
            "bytes": self.bytes,
            "rows": [asdict(r) for r in self.rows],
        }


def origin_label(instruction: Instruction | None, module: Module, depth: int = 6) -> str:
    """Where a buffer came from: the user's source line of the instruction that made it, else
    its op_name; an instruction XLA made with neither (a copy, an iota its passes inserted) is
    named by the nearest operand that has one (``copy of ...``), else by its opcode."""
    if instruction is None:
        return "a buffer this module does not name"
    own = _own_label(instruction, module)
    if own:
        return own
    seen = {id(instruction)}
    frontier = list(instruction.operands)
    for _ in range(depth):
        following: list[Instruction] = []
        for operand in frontier:
            if id(operand) in seen:
                continue
            seen.add(id(operand))
            found = _own_label(operand, module)
            if found:
                return f"{instruction.opcode} XLA made from {found}"
            following.extend(operand.operands)
        frontier = following
    for user in instruction.users:
        found = _own_label(user, module)
        if found:
            return f"{instruction.opcode} XLA made for {found}"
    return f"{instruction.opcode} XLA made ({instruction.name})"


def _own_label(instruction: Instruction, module: Module) -> str:
    op_name = instruction.op_name or ""
    if instruction.opcode == "parameter" and op_name:
        return f"argument {op_name}"
    return source_of(instruction.stack, op_name, module.name) or op_name


def _rows(items: Iterable[tuple[str, int]], total: int, other: str) -> list[FillRow]:
    """``items`` (label, bytes) grouped by label, largest first, made to sum to ``total``:
    the largest rows are kept whole until the total is reached (the last one cut), and what
    the items do not cover is one ``other`` row."""
    grouped: dict[str, list[int]] = {}
    for label, size in items:
        entry = grouped.setdefault(label, [0, 0])
        entry[0] += size
        entry[1] += 1
    rows = sorted(
        (FillRow(label, b, n) for label, (b, n) in grouped.items() if b > 0),
        key=lambda r: (-r.bytes, r.label),
    )
    out: list[FillRow] = []
    left = total
    for row in rows:
        if left <= 0:
            break
        out.append(FillRow(row.label, min(row.bytes, left), row.buffers))
        left -= out[-1].bytes
    if left > 0:
        out.append(FillRow(other, left, 0))
    return out


def _exact_totals(result: MemoryResult) -> bool:
    """Whether the result's breakdown is the compile's own whole-program sizes, which make up
    its figure (XLA:TPU: ``peak_memory_in_bytes`` or the needs of a refused compile)."""
    return result.source == MemorySource.XLA_TPU


def _entry_items(module: Module, result: MemoryResult) -> list[tuple[str, int]]:
    """(argument, bytes) of every entry parameter, at the size a TPU layout gives it."""
    entry = module.entry
    if entry is None:
        return []
    sized = {b.producer: b.bytes for b in result.live_at_peak if b.kind == BufferKind.PARAMETER}
    out = []
    for param in entry.parameters:
        size = buffer_bytes(str(param.shape_text)) or sized.get(param.name, 0)
        out.append((argument_label(param.op_name or "", param.name, param.parameter_number), size))
    return out


def _output_items(module: Module, index: InstructionIndex) -> list[tuple[str, int]]:
    """(where it was made, bytes) of each output of the entry not aliased to a parameter."""
    entry = module.entry
    root = entry.root if entry is not None else None
    if root is None:
        return []
    taken = {tuple(a.output_index) for a in input_output_alias(module)}
    elements: list[tuple[tuple[int, ...], Instruction]] = (
        [((i,), op) for i, op in enumerate(root.operands)]
        if root.opcode == "tuple"
        else [((), root)]
    )
    out = []
    for position, operand in elements:
        if position in taken:
            continue
        out.append((origin_label(_made_by(operand), module), buffer_bytes(str(operand.shape_text))))
    return out


def _made_by(instruction: Instruction) -> Instruction:
    """The instruction that made an output's values, through passive wrappers (a
    ``get-tuple-element`` of a multi-output fusion, a ``bitcast``, a ``copy``)."""
    seen = 0
    while instruction.opcode in ("get-tuple-element", "bitcast", "copy") and seen < 8:
        if not instruction.operands:
            break
        if instruction.op_name:
            break
        instruction = instruction.operands[0]
        seen += 1
    return instruction


def _live_items(
    buffers: Iterable[LiveBuffer], kind: str, module: Module, index: InstructionIndex
) -> list[tuple[str, int]]:
    out = []
    for b in buffers:
        if b.kind != kind or on_chip(b.shape):
            continue
        instruction = index.get(b.producer)
        if kind == BufferKind.PARAMETER and instruction is not None:
            label = argument_label(instruction.op_name or "", instruction.name)
        else:
            label = origin_label(instruction, module)
        out.append((label, b.bytes))
    return out


#: What a group's "other" row holds: its total less the rows listed.
_OTHERS = {
    FillKind.ARGUMENTS: "argument tuples and padding",
    FillKind.OUTPUTS: "the output tuple and padding",
    FillKind.CONSTANTS: "constants",
    FillKind.TEMPORARIES: "temporaries not live at the live range's peak",
    FillKind.ON_CHIP: "on-chip buffers",
}


def _assigned_totals(parts: dict[str, int]) -> dict[FillKind, int]:
    """Each group's bytes from the buffer assignment's exact totals."""
    return {
        FillKind.ARGUMENTS: parts.get("parameters", 0),
        FillKind.OUTPUTS: max(0, parts.get("outputs", 0) - parts.get("aliased", 0)),
        FillKind.CONSTANTS: parts.get("constants", 0),
        FillKind.TEMPORARIES: parts.get("temporaries", 0),
    }


def _live_totals(live: list[LiveBuffer]) -> dict[FillKind, int]:
    """Each group's bytes from the buffers live at the peak (on-chip ones apart)."""
    totals = {}
    for buffer_kind, group in (
        (BufferKind.PARAMETER, FillKind.ARGUMENTS),
        (BufferKind.OUTPUT, FillKind.OUTPUTS),
        (BufferKind.CONSTANT, FillKind.CONSTANTS),
        (BufferKind.TEMPORARY, FillKind.TEMPORARIES),
    ):
        totals[group] = sum(b.bytes for b in live if b.kind == buffer_kind and not on_chip(b.shape))
    totals[FillKind.ON_CHIP] = sum(b.bytes for b in live if on_chip(b.shape))
    return totals


def fill_of(result: MemoryResult, module: Module) -> list[FillGroup]:
    """The groups that make up ``result.peak_bytes`` (see the module docstring)."""
    index = InstructionIndex(module)
    live = result.live_at_peak
    if _exact_totals(result):
        totals = _assigned_totals(result.breakdown)
        arguments = _entry_items(module, result)
        outputs = _output_items(module, index)
    else:
        totals = _live_totals(live)
        arguments = _live_items(live, BufferKind.PARAMETER, module, index)
        outputs = _live_items(live, BufferKind.OUTPUT, module, index)
    items = {
        FillKind.ARGUMENTS: arguments,
        FillKind.OUTPUTS: outputs,
        FillKind.CONSTANTS: [("constants", totals[FillKind.CONSTANTS])],
        FillKind.TEMPORARIES: _live_items(live, BufferKind.TEMPORARY, module, index),
        FillKind.ON_CHIP: [
            (origin_label(index.get(b.producer), module), b.bytes) for b in live if on_chip(b.shape)
        ],
    }
    groups: list[FillGroup] = []
    left = result.peak_bytes
    for kind, total in totals.items():
        size = max(0, min(total, left))
        if size:
            rows = _rows(items[kind], size, _OTHERS[kind])
            groups.append(FillGroup(kind.value, size, rows, TITLES[kind]))
        left -= size
    if left > 0:
        tpu = result.source == MemorySource.XLA_TPU
        title = TITLES[FillKind.RESERVED] if tpu else "not in the listed buffers"
        groups.append(FillGroup(FillKind.RESERVED.value, left, _reserved_rows(result, left), title))
    return groups


def _reserved_rows(result: MemoryResult, size: int) -> list[FillRow]:
    """The rest of the figure, said as what it is for its source."""
    if result.source == MemorySource.XLA_TPU:
        label = (
            "XLA:TPU's figure less the arguments, outputs and temporaries: on-chip scratch, "
            "alignment and fragmentation"
        )
    else:
        label = "the peak less the buffers its live range lists"
    return [FillRow(label, size, 0)]

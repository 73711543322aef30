"""Build a :class:`MemoryResult` from XLA's side files or from the simulation, with fallback.

The sources, best first: XLA's own buffer assignment and live range (a dump's
``-buffer-assignment.txt`` and ``-live-range.txt``, either XLA generation's layout), then
hloscope's simulation of the module text. A side file that is truncated or belongs to
another module is not trusted: one warning line, and the next source, said in the notes.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..provenance import source_of
from ._lookup import InstructionIndex
from ._result import PLURALS, BufferKind, LiveBuffer, MemoryResult, MemorySource
from ._savings import savings_of
from ._simulation import Simulation, simulate

if TYPE_CHECKING:  # pragma: no cover
    from ...dump.buffers import BufferAssignment, LiveRange, PeakBuffer
    from ...hlo.model import Instruction, Module

__all__ = ["memory_from_assignment", "memory_from_simulation", "memory_of", "usable_assignment"]

#: Opcodes that only name or pass buffers: no kernel runs for them.
_PASSIVE = frozenset(
    {"parameter", "constant", "bitcast", "tuple", "get-tuple-element", "while", "call"}
    | {"conditional", "optimization-barrier", "domain", "add-dependency"}
)
_LABEL = re.compile(r"^(?P<name>.*?)\{(?P<index>[\d,]*)\}$")


def _split_label(label: str) -> tuple[str, tuple[int, ...]]:
    m = _LABEL.match(label)
    if not m:
        return label, ()
    index = tuple(int(x) for x in m.group("index").split(",") if x)
    return m.group("name"), index


def _where(instruction: Instruction | None, module: Module) -> tuple[str, str]:
    """(source line, op_name scope) of the instruction that produced a buffer."""
    if instruction is None:
        return "", ""
    op_name = instruction.op_name or ""
    source = source_of(instruction.stack, op_name, module.name)
    scope = op_name.rsplit("/", 1)[0] if "/" in op_name else op_name
    return source, scope


def _peak_at(
    module: Module, sequence: list[str], time: int, index: dict | InstructionIndex | None = None
) -> dict:
    name = sequence[time] if 0 <= time < len(sequence) else None
    kernel = None
    if name is not None:
        instruction = (index or InstructionIndex(module)).get(name)
        if instruction is not None and instruction.opcode not in _PASSIVE:
            kernel = f"{instruction.name} ({instruction.opcode})"
    return {"index": time, "instruction": name, "kernel": kernel}


def _compress(timeline: list[int]) -> list[tuple[int, int]]:
    """``[index, bytes]`` pairs where the live bytes change (the first and last kept)."""
    out: list[tuple[int, int]] = []
    for t, b in enumerate(timeline):
        if not out or out[-1][1] != b or t == len(timeline) - 1:
            out.append((t, b))
    return out


def usable_assignment(module: Module, assignment: BufferAssignment | None) -> str | None:
    """Why ``assignment`` cannot be trusted for ``module`` (``None`` when it can)."""
    if assignment is None:
        return "no buffer assignment in the dump"
    live = assignment.live_range
    if live is None or live.peak_bytes is None or live.peak_time is None:
        return "the dump's live range has no peak (missing or truncated)"
    if assignment.warnings:
        return assignment.warnings[0]
    names = InstructionIndex(module)
    if any(n not in names for n in live.sequence):
        return "the live range names instructions this module does not have (another module?)"
    return None


def memory_from_assignment(
    module: Module, assignment: BufferAssignment, source: str = MemorySource.BUFFER_ASSIGNMENT
) -> MemoryResult:
    """The result from XLA's own buffer assignment and live range (exact)."""
    live = assignment.live_range
    assert live is not None and live.peak_time is not None
    kinds, sizes = _kinds_and_sizes(assignment)
    by_name = InstructionIndex(module)
    buffers = [_live_buffer(peak, kinds, by_name, module) for peak in live.peak_buffers]
    timeline = _assigned_timeline(live, sizes)
    breakdown = {
        "parameters": assignment.argument_bytes,
        "outputs": assignment.output_bytes,
        "temporaries": assignment.temp_bytes,
        "aliased": assignment.alias_bytes,
        "constants": assignment.constant_bytes,
    }
    result = MemoryResult(
        module=module.name,
        source=str(source),
        peak_bytes=live.peak_bytes or 0,
        breakdown=breakdown,
        peak_at=_peak_at(module, live.sequence, live.peak_time, by_name),
        live_at_peak=buffers,
        timeline=_compress(timeline),
        schedule=list(live.sequence),
        ends={label: stop for label, (_, stop) in live.ranges.items()},
    )
    result.savings = savings_of(module, result)
    return result


def _kinds_and_sizes(assignment: BufferAssignment) -> tuple[dict[str, str], dict[str, int]]:
    """Each assigned value's kind (from its allocation) and size, by its live-range label
    (``name{index}``)."""
    kinds: dict[str, str] = {}
    sizes: dict[str, int] = {}
    for allocation, value in assignment.buffer_values():
        name = re.sub(r"\{.*\}$", "", value.instruction)
        label = f"{name}{{{','.join(map(str, value.index or ()))}}}"
        kinds[label] = _allocation_kind(allocation)
        sizes[label] = value.size
    return kinds, sizes


def _live_buffer(
    peak: PeakBuffer, kinds: dict[str, str], by_name: InstructionIndex, module: Module
) -> LiveBuffer:
    """One buffer XLA lists live at the peak, with its shape, kind and source line."""
    name, index = _split_label(peak.buffer)
    instruction = by_name.get(name)
    where, scope = _where(instruction, module)
    shape = ""
    if instruction is not None:
        shape = str(_sub_shape(instruction, index))
    return LiveBuffer(
        name=peak.buffer,
        shape=shape,
        bytes=peak.size,
        kind=kinds.get(peak.buffer, BufferKind.TEMPORARY),
        producer=name,
        source=where,
        scope=scope,
    )


def _assigned_timeline(live: LiveRange, sizes: dict[str, int]) -> list[int]:
    """The bytes live at each time of the schedule, from each value's live range."""
    end = live.max_time if live.max_time is not None else len(live.sequence)
    delta = [0] * (end + 2)
    for label, (start, stop) in live.ranges.items():
        size = sizes.get(label, 0)
        delta[start] += size
        delta[min(stop, end) + 1] -= size
    timeline, running = [], 0
    for d in delta[: end + 1]:
        running += d
        timeline.append(running)
    return timeline


def _allocation_kind(allocation) -> str:  # noqa: ANN001 - dump.buffers.Allocation
    if allocation.is_parameter:
        return BufferKind.PARAMETER
    if allocation.constant:
        return BufferKind.CONSTANT
    if allocation.maybe_live_out or allocation.is_output:
        return BufferKind.OUTPUT
    return BufferKind.TEMPORARY


def _sub_shape(instruction: Instruction, index: tuple[int, ...]):  # noqa: ANN202
    shape = instruction.shape
    for i in index:
        if not shape.is_tuple or i >= len(shape.tuple_shapes):
            break
        shape = shape.tuple_shapes[i]
    return shape


def memory_from_simulation(module: Module, simulation: Simulation | None = None) -> MemoryResult:
    """The result from hloscope's live-range simulation of the module text."""
    sim = simulation or simulate(module)
    entry = module.entry
    end = len(sim.sequence)
    # What lives to the end of the program and is not a parameter is an output.
    output_ids = {
        v.id
        for v in sim.values
        if v.end >= end
        and not (v.instruction.opcode == "parameter" and v.instruction.computation is entry)
    }
    buffers = []
    at = {i.name: i for i in sim.sequence[sim.peak_time : sim.peak_time + 1]}
    totals = dict.fromkeys(("parameters", "outputs", "temporaries", "aliased", "constants"), 0)
    live = sim.live_at(sim.peak_time)
    for v in live:
        d = v.instruction
        if d.opcode == "parameter" and d.computation is entry:
            kind = BufferKind.PARAMETER
        elif v.id in output_ids:
            kind = BufferKind.OUTPUT
        elif d.opcode == "constant":
            kind = BufferKind.CONSTANT
        else:
            kind = BufferKind.TEMPORARY
        totals[PLURALS[kind]] += v.bytes
        where, scope = _where(d, module)
        buffers.append(LiveBuffer(v.label, str(v.shape), v.bytes, kind, d.name, where, scope))
    totals["aliased"] = _aliased_bytes(module)
    result = MemoryResult(
        module=module.name,
        source=MemorySource.SIMULATED.value,
        peak_bytes=sim.peak_bytes,
        breakdown=totals,
        peak_at=_peak_at(module, [i.name for i in sim.sequence], sim.peak_time, at),
        live_at_peak=buffers,
        timeline=_compress(sim.timeline),
        schedule=[i.name for i in sim.sequence],
        ends={v.label: v.end for v in live},
    )
    if not sim.scheduled:
        result.notes.append(
            "the module is not scheduled (no is_scheduled=true): simulated in definition order"
        )
    result.savings = savings_of(module, result)
    return result


def _aliased_bytes(module: Module) -> int:
    from ._savings import input_output_alias

    entry = module.entry
    if entry is None:
        return 0
    params = entry.parameters
    total = 0
    for alias in input_output_alias(module):
        if alias.parameter < len(params):
            shape = _sub_shape(params[alias.parameter], tuple(alias.parameter_index))
            total += shape.byte_size or 0
    return total


def memory_of(
    module: Module, assignment: BufferAssignment | None = None, *, has_side_files: bool = False
) -> MemoryResult:
    """The best result for ``module``: XLA's buffer assignment when usable, else the
    simulation, with a note saying why when side files were there but not usable."""
    from .fill import fill_of

    problem = usable_assignment(module, assignment)
    if problem is None and assignment is not None:
        result = memory_from_assignment(module, assignment)
    else:
        result = memory_from_simulation(module)
        if has_side_files or assignment is not None:
            result.notes.insert(0, f"warning: {problem}; falling back to the simulation")
    result.fills = fill_of(result, module)
    return result

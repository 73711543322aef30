"""hloscope's own live-range simulation: XLA's ``HloLiveRange`` rebuilt from module text.

When a dump has no ``-live-range.txt`` (or it is unreadable), the peak is simulated here the
way XLA computes it, so the two agree:

1. **Schedule.** The entry computation's instructions in text order (that order *is* the
   schedule when the header says ``is_scheduled=true``), with each ``while``'s condition and
   body, and each ``call``/``conditional``'s computations, flattened in just before the
   instruction that runs them. One logical time per instruction.
2. **Values.** Each instruction defines one value per index of its shape, except the ones
   that only pass values on: ``bitcast``, ``get-tuple-element``, ``tuple`` (defines only its
   pointer table), ``while``/``conditional``/``call`` (carry their bodies' values),
   ``optimization-barrier``, the ``*-done`` halves of asynchronous pairs.
3. **Buffers.** Values that must share memory are one buffer: values meeting at one position
   (a loop's init and its body's result), an in-place ``dynamic-update-slice``/``scatter``
   (or a fusion whose root is one) and its operand, ``output_to_operand_aliasing``, and the
   module's ``input_output_alias`` (donated parameters). Within a buffer the values' ranges
   are cut so they do not overlap, as XLA's ``NormalizeAliasedBuffers`` does.
4. **Ranges and peak.** A value lives from its definition (a parameter from its
   computation's start) to its last use or position (a root to its computation's end; an
   entry parameter that is not donated to the end of the program). The peak moment is found
   with XLA's sweep, and the peak bytes are the values live at that moment.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ...hlo.model import Computation, Instruction, Module
    from ...hlo.shape import Shape

__all__ = ["SimulatedValue", "Simulation", "simulate", "shape_bytes"]

Index = tuple[int, ...]

#: Opcodes whose result is the operand's value (no new buffer).
_FORWARDING = frozenset({"bitcast", "optimization-barrier", "domain", "add-dependency"})
#: ``*-done`` opcodes and the index of their operand that holds the result.
_DONE_INDEX: dict[str, Index] = {
    "copy-done": (0,),
    "async-done": (1,),
    "collective-permute-done": (1,),
    "all-gather-done": (1,),
    "all-reduce-done": (),
    "send-done": (),
    "recv-done": (0,),
}
#: In-place ops: operand 0's buffer is updated and becomes the result.
_IN_PLACE = frozenset({"dynamic-update-slice", "scatter"})


def shape_bytes(shape: Shape) -> int:
    """Bytes XLA gives a buffer of ``shape``: an array's data; a tuple's pointer table (8 bytes
    per element, the elements are buffers of their own)."""
    if shape.is_tuple:
        return 8 * len(shape.tuple_shapes)
    if shape.is_token:
        return 0
    return shape.byte_size or 0


def _sub_shape(shape: Shape, index: Index) -> Shape:
    for i in index:
        shape = shape.tuple_shapes[i]
    return shape


def _indices(shape: Shape, prefix: Index = ()) -> list[Index]:
    """Every index of ``shape``: ``()`` and, for tuples, each element's indices."""
    out = [prefix]
    if shape.is_tuple:
        for i, sub in enumerate(shape.tuple_shapes):
            out.extend(_indices(sub, (*prefix, i)))
    return out


@dataclass(slots=True)
class SimulatedValue:
    """One HLO value: the array (or tuple table) ``instruction`` defines at ``index``."""

    id: int
    instruction: Instruction
    index: Index
    bytes: int
    start: int = 0
    end: int = 0

    @property
    def label(self) -> str:
        """``name{0,1}`` as XLA's live range prints it."""
        return f"{self.instruction.name}{{{','.join(map(str, self.index))}}}"

    @property
    def shape(self) -> Shape:
        return _sub_shape(self.instruction.shape, self.index)


@dataclass(slots=True)
class Simulation:
    """The simulated live range of a module.

    ``sequence`` is the flattened schedule; ``scheduled`` says whether it is XLA's schedule
    (``is_scheduled=true``) or only definition order. ``timeline[t]`` is the bytes live at
    time ``t`` (both ends of a range counted, as XLA prints them).
    """

    sequence: list[Instruction]
    values: list[SimulatedValue]
    scheduled: bool
    peak_time: int = 0
    peak_bytes: int = 0
    timeline: list[int] = field(default_factory=list)

    def live_at(self, time: int) -> list[SimulatedValue]:
        """The values live at ``time``, largest first (ties by name, as XLA sorts them)."""
        live = [v for v in self.values if v.start <= time <= v.end]
        return sorted(live, key=lambda v: (-v.bytes, v.instruction.name, v.index))


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, x: int) -> int:
        parent = self.parent
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(x, x) != root:
            parent[x], x = root, parent[x]
        return root

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


class _Simulator:
    def __init__(self, module: Module) -> None:
        self.module = module
        self.sequence: list[Instruction] = []
        self.time: dict[int, int] = {}  # id(instruction) -> time
        self.spans: dict[int, tuple[int, int]] = {}  # id(computation) -> [start, end)
        self.values: list[SimulatedValue] = []
        # id(instruction) -> index -> value ids at that position
        self.sets: dict[int, dict[Index, set[int]]] = {}
        self.defined: dict[tuple[int, Index], int] = {}
        self.callers: dict[int, Instruction] = {}  # id(called computation) -> caller
        self.passthroughs: dict[int, set[Index]] = {}
        self.phis: dict[tuple[int, Index], tuple[Instruction, Instruction, Index]] = {}

    # --- 1. the schedule -----------------------------------------------------------------
    def flatten(self, computation: Computation) -> None:
        if id(computation) in self.spans:
            return
        start = len(self.sequence)
        for instruction in computation.instructions:
            if instruction.opcode == "while":
                for called in instruction.called_computations:  # condition, then body
                    self.callers[id(called)] = instruction
                    self.flatten(called)
            elif instruction.opcode in ("call", "conditional"):
                for called in instruction.called_computations:
                    self.callers[id(called)] = instruction
                    self.flatten(called)
            self.time[id(instruction)] = len(self.sequence)
            self.sequence.append(instruction)
        self.spans[id(computation)] = (start, len(self.sequence))

    # --- 2. values -----------------------------------------------------------------------
    def define(self, instruction: Instruction, index: Index) -> set[int]:
        key = (id(instruction), index)
        vid = self.defined.get(key)
        if vid is None:
            vid = len(self.values)
            self.defined[key] = vid
            shape = _sub_shape(instruction.shape, index)
            self.values.append(SimulatedValue(vid, instruction, index, shape_bytes(shape)))
        return {vid}

    def value_set(self, instruction: Instruction, index: Index) -> set[int]:
        return self.sets.get(id(instruction), {}).get(index, set())

    def forwarded(self, source: Instruction, prefix: Index, shape: Shape) -> dict[Index, set[int]]:
        return {i: set(self.value_set(source, (*prefix, *i))) for i in _indices(shape)}

    def transfer(self, instruction: Instruction) -> dict[Index, set[int]]:
        op = instruction.opcode
        shape = instruction.shape
        operands = instruction.operands
        if op == "parameter":
            caller = self.callers.get(id(instruction.computation))
            if caller is None:
                return {i: self.define(instruction, i) for i in _indices(shape)}
            return self.parameter_sets(instruction, caller)
        if op in _FORWARDING and operands:
            return self.forwarded(operands[0], (), shape)
        if op == "get-tuple-element" and operands:
            return self.forwarded(operands[0], (int(instruction.attrs.raw("index")),), shape)
        if op == "tuple":
            out: dict[Index, set[int]] = {(): self.define(instruction, ())}
            for k, operand in enumerate(operands):
                for i, s in self.forwarded(operand, (), operand.shape).items():
                    out[(k, *i)] = s
            return out
        if op in _DONE_INDEX and operands:
            return self.forwarded(operands[0], _DONE_INDEX[op], shape)
        if op == "copy-start" and operands:
            out = {i: self.define(instruction, i) for i in ((), (0,), (2,))}
            out[(1,)] = set(self.value_set(operands[0], ()))
            return out
        if op == "while":
            return self.loop_sets(instruction, instruction)
        if op == "call":
            root = instruction.called_computations[0].root
            return self.forwarded(root, (), shape) if root is not None else {}
        if op == "conditional":
            return self.branch_sets(instruction)
        if op == "copy" and shape.is_tuple and operands:
            out = self.forwarded(operands[0], (), shape)
            out[()] = self.define(instruction, ())
            return out
        return {i: self.define(instruction, i) for i in _indices(shape)}

    def parameter_sets(self, parameter: Instruction, caller: Instruction) -> dict[Index, set[int]]:
        shape = parameter.shape
        if caller.opcode == "while":
            return self.loop_sets(parameter, caller)
        if caller.opcode == "conditional":
            branches = caller.called_computations
            branch = next(b for b in branches if b is parameter.computation)
            k = 1 + branches.index(branch)
            return self.forwarded(caller.operands[k], (), shape)
        number = parameter.parameter_number or 0
        return self.forwarded(caller.operands[number], (), shape)

    def loop_sets(self, instruction: Instruction, loop: Instruction) -> dict[Index, set[int]]:
        """Values of a ``while`` or of its body's or condition's parameter. An index the body
        passes through unchanged holds the init value; any other holds a *phi* value of its
        own (XLA's SSA dataflow), sharing one buffer with the init and the body's result."""
        passthrough = self.passthrough(loop)
        out: dict[Index, set[int]] = {}
        init = loop.operands[0]
        for i in _indices(instruction.shape):
            if i in passthrough:
                out[i] = set(self.value_set(init, i))
            else:
                out[i] = self.define(instruction, i)
                self.phis[(id(instruction), i)] = (instruction, loop, i)
        return out

    def passthrough(self, loop: Instruction) -> set[Index]:
        found = self.passthroughs.get(id(loop))
        if found is None:
            body = loop.called_computations[-1]
            root = body.root
            found = set()
            if root is not None:
                for i in _indices(loop.shape):
                    if i and _traces_to_parameter(root, i) == i:
                        found.add(i)
            self.passthroughs[id(loop)] = found
        return found

    def branch_sets(self, conditional: Instruction) -> dict[Index, set[int]]:
        """A ``conditional``'s values: a phi per index unless every branch returns the same."""
        out: dict[Index, set[int]] = {}
        roots = [c.root for c in conditional.called_computations if c.root is not None]
        for i in _indices(conditional.shape):
            sets = [self.value_set(r, i) for r in roots]
            if i and sets and all(s == sets[0] for s in sets):
                out[i] = set(sets[0])
            else:
                out[i] = self.define(conditional, i)
                self.phis[(id(conditional), i)] = (conditional, conditional, i)
        return out

    def propagate(self) -> None:
        # Loops feed their results back to their parameters: repeat until nothing changes.
        for _ in range(50):
            changed = False
            for instruction in self.sequence:
                new = self.transfer(instruction)
                if new != self.sets.get(id(instruction)):
                    self.sets[id(instruction)] = new
                    changed = True
            if not changed:
                return

    # --- 3. buffers ----------------------------------------------------------------------
    def buffers(self) -> _UnionFind:
        uf = _UnionFind()
        for sets in self.sets.values():
            for s in sets.values():
                first = min(s, default=None)
                for v in s:
                    uf.union(first, v)  # type: ignore[arg-type]
        for instruction in self.sequence:
            for operand, operand_index, output_index in _in_place_pairs(instruction):
                for a in self.value_set(operand, operand_index):
                    for b in self.value_set(instruction, output_index):
                        uf.union(a, b)
        for instruction, loop, i in self.phis.values():
            # A phi, the values flowing into it and the one it stands for share one buffer.
            sources: list[Instruction] = []
            if loop.opcode == "while":
                body_root = loop.called_computations[-1].root
                sources = [loop.operands[0]] + ([body_root] if body_root is not None else [])
            else:
                sources = [c.root for c in loop.called_computations if c.root is not None]
            mine = self.value_set(instruction, i)
            for source in sources:
                for a in self.value_set(source, i):
                    for b in mine:
                        uf.union(a, b)
        entry = self.module.entry
        root = entry.root if entry is not None else None
        if entry is not None and root is not None:
            params = entry.parameters
            for alias in _input_output_alias(self.module):
                if alias.parameter < len(params):
                    for a in self.value_set(params[alias.parameter], alias.parameter_index):
                        for b in self.value_set(root, alias.output_index):
                            uf.union(a, b)
        return uf

    # --- 4. ranges -----------------------------------------------------------------------
    def ranges(self) -> None:
        positions: dict[int, list[tuple[Instruction, Index]]] = {}
        for instruction in self.sequence:
            for index, s in self.sets.get(id(instruction), {}).items():
                for v in s:
                    positions.setdefault(v, []).append((instruction, index))
        end_of_program = len(self.sequence)
        aliased = {(a.parameter, a.parameter_index) for a in _input_output_alias(self.module)}
        entry = self.module.entry
        for value in self.values:
            d = value.instruction
            comp = d.computation
            span = self.spans[id(comp)]
            t = self.time[id(d)]
            value.start = span[0] if d.opcode == "parameter" else t
            end = span[1] if d.is_root else t
            for inst, index in positions.get(value.id, ()):
                if inst is d and index == value.index:
                    continue
                if inst.is_root:
                    span_of = self.spans.get(id(inst.computation))
                    if span_of is not None:
                        end = max(end, span_of[1])
                elif id(inst) in self.time:
                    end = max(end, self.time[id(inst)])
            if (
                d.opcode == "parameter"
                and comp is entry
                and (d.parameter_number, value.index) not in aliased
            ):
                value.end = end_of_program
                continue
            for inst, index in positions.get(value.id, ()):
                for user in inst.users:
                    if not _may_use(user, index):
                        continue
                    if user.opcode == "call":
                        continue
                    used = user
                    if user.opcode == "while":
                        params = user.called_computations[-1].parameters
                        if params:
                            used = params[0]
                    tu = self.time.get(id(used))
                    if tu is not None:
                        end = max(end, tu)
            value.end = end

    def normalize(self, uf: _UnionFind) -> None:
        groups: dict[int, list[SimulatedValue]] = {}
        for value in self.values:
            groups.setdefault(uf.find(value.id), []).append(value)
        for group in groups.values():
            if len(group) < 2:
                continue
            group.sort(key=lambda v: (v.start, v.end, v.id))
            for a, b in zip(group, group[1:]):
                b.end = max(a.end, b.end)
                a.end = min(a.end, b.start)


def _traces_to_parameter(instruction: Instruction, index: Index) -> Index | None:
    """The index of the computation's parameter 0 that ``instruction`` at ``index`` merely
    passes on through tuples and get-tuple-elements, if it does."""
    for _ in range(256):
        if instruction.opcode == "tuple" and index:
            instruction, index = instruction.operands[index[0]], index[1:]
        elif instruction.opcode == "get-tuple-element" and instruction.operands:
            index = (int(instruction.attrs.raw("index")), *index)
            instruction = instruction.operands[0]
        elif instruction.opcode == "parameter":
            return index
        else:
            return None
    return None


def _may_use(user: Instruction, index: Index) -> bool:
    """Whether ``user`` reads the value at ``index`` of its operand (XLA's rule: a tuple
    only points at its operands, a get-tuple-element or copy reads only the table)."""
    if user.opcode in ("tuple", "domain"):
        return False
    if user.opcode in ("get-tuple-element", "copy"):
        return index == ()
    return True


def _input_output_alias(module: Module) -> list:
    try:
        return list(module.header_attrs.get("input_output_alias") or [])
    except Exception:  # noqa: BLE001 - an unreadable header attribute only loses aliasing
        return []


def _in_place_pairs(instruction: Instruction) -> Iterable[tuple[Instruction, Index, Index]]:
    """(operand, operand index, output index) pairs that share a buffer in place."""
    op = instruction.opcode
    operands = instruction.operands
    if op in _IN_PLACE and operands:
        yield operands[0], (), ()
        return
    if "output_to_operand_aliasing" in (instruction.attr_text or ""):
        try:
            pairs = instruction.attrs.get("output_to_operand_aliasing") or []
        except Exception:  # noqa: BLE001 - an unreadable attribute only loses aliasing
            pairs = []
        for alias in pairs:
            if alias.operand < len(operands):
                yield operands[alias.operand], tuple(alias.operand_index), tuple(alias.output_index)
        return
    if op == "fusion":
        fused = instruction.fused_computation
        # Most fused bodies are not built yet; their opcodes are read without building them,
        # and only a body that updates in place is built to find which operand it updates.
        if fused is None or _IN_PLACE.isdisjoint(fused.opcodes()):
            return
        root = fused.root
        if root is None:
            return
        outputs = list(enumerate(root.operands)) if root.opcode == "tuple" else [(None, root)]
        for k, out in outputs:
            number = _in_place_parameter(out)
            if number is not None and number < len(operands):
                yield operands[number], (), (() if k is None else (k,))


def _in_place_parameter(instruction: Instruction) -> int | None:
    """The fused parameter an in-place root updates (through bitcasts), if any."""
    while instruction.opcode == "bitcast" and instruction.operands:
        instruction = instruction.operands[0]
    if instruction.opcode not in _IN_PLACE or not instruction.operands:
        return None
    target = instruction.operands[0]
    while target.opcode == "bitcast" and target.operands:
        target = target.operands[0]
    return target.parameter_number if target.opcode == "parameter" else None


def _peak(values: list[SimulatedValue], end_of_program: int) -> tuple[int, list[int]]:
    """XLA's ``ComputePeakMemoryMoment``: sweep starts and ends (an end at ``end + 1``;
    starts before ends at one time), sizing each value by its instruction's whole shape."""
    events: list[tuple[int, bool, int]] = []
    sizes: dict[int, int] = {}  # id(instruction) -> its whole shape's bytes, computed once
    for v in values:
        key = id(v.instruction)
        size = sizes.get(key)
        if size is None:
            size = sizes[key] = shape_bytes(v.instruction.shape)
        events.append((v.start, False, size))
        events.append((v.end + 1, True, size))
    # Sorting whole tuples orders sizes within one (time, kind) group too; that cannot move
    # the peak: a group of starts only rises and a group of ends only falls.
    events.sort()
    usage = peak = 0
    peak_time: int | None = None
    for time, is_end, size in events:
        usage += -size if is_end else size
        if peak < usage:
            peak, peak_time = usage, time
    delta = [0] * (end_of_program + 2)
    for v in values:
        delta[v.start] += v.bytes
        delta[min(v.end, end_of_program) + 1] -= v.bytes
    timeline, running = [], 0
    for d in delta[: end_of_program + 1]:
        running += d
        timeline.append(running)
    return peak_time or 0, timeline


def simulate(module: Module) -> Simulation:
    """Simulate ``module``'s live range (see the module docstring for the rules)."""
    sim = _Simulator(module)
    entry = module.entry
    if entry is None:
        return Simulation([], [], scheduled=False)
    sim.flatten(entry)
    sim.propagate()
    sim.ranges()
    sim.normalize(sim.buffers())
    peak_time, timeline = _peak(sim.values, len(sim.sequence))
    scheduled = bool(module.header_attrs.get("is_scheduled"))
    result = Simulation(sim.sequence, sim.values, scheduled, peak_time, 0, timeline)
    # A sum needs no order: live_at's sort is left to the one caller that lists them.
    result.peak_bytes = sum(v.bytes for v in sim.values if v.start <= peak_time <= v.end)
    return result

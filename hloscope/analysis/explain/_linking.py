"""Linking: every stage's ops put on their source lines and joined to the kernels they ended
in after optimization.

The optimized module goes first (:func:`_kernels_and_members`): each kernel's members are
added to their lines and to a :class:`_KernelIndex` by ``op_name``, call stack, line and
position. The earlier stages then look their ops up in that index (:func:`_add_before`,
:func:`_add_stablehlo`, :func:`_add_jaxpr`); an op found in no kernel gets its fate (a
bitcast, removed, inlined). A :class:`_Builder` collects the ops into
:class:`~hloscope.analysis.explain.SourceLine` objects.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...hlo.metadata import StackFrame
from ...hlo.model import Module
from ...hlo.opcodes import FREE_OPCODES
from ...hlo.stablehlo import join_scope, stablehlo_ops
from ...stages import Stage
from ..fusions import fusion_report, op_source
from ..provenance import source_of, user_frame
from ..source_code import code_line
from ._results import ExplainedKernel, LinkedOp, SourceLine, _cut

if TYPE_CHECKING:  # pragma: no cover
    from ...backends.jaxpr_records import JaxprSources
    from ...hlo.model import Instruction

# Calls nested deeper than this are not followed (a recursion guard; jax nests a few levels).
_CALL_DEPTH = 64
# Ops that XLA keeps as they are (no elementwise op, which CSE and fusion freely duplicate or
# merge): one of them in a kernel with no metadata is the op of the same opcode and shape
# before optimization.
_DISTINCT_OPCODES = frozenset(
    {
        "dot",
        "convolution",
        "fft",
        "sort",
        "scatter",
        "gather",
        "select-and-scatter",
        "triangular-solve",
        "cholesky",
        "custom-call",
        "rng-bit-generator",
        "all-reduce",
        "all-gather",
        "reduce-scatter",
        "all-to-all",
        "collective-permute",
    }
)
_LAYOUT = re.compile(r"\{[^{}]*\}")


def _op_key(inst: Instruction) -> tuple[str, str]:
    """``(opcode, shape without layout)``: what an op is called by across optimization."""
    return inst.opcode, _LAYOUT.sub("", inst.shape_text)


def _frame_key(stack: Sequence[StackFrame]) -> tuple[tuple[str, int, str], ...]:
    return tuple((f.file, f.line, f.function) for f in stack)


def _position(stack: Sequence[StackFrame]) -> tuple[str, int, int] | None:
    """``(file, line, column)`` of the user's frame, when the column is known."""
    frame = user_frame(stack)
    if frame is None or not frame.column:
        return None
    return (frame.file, frame.line, frame.column)


class _KernelIndex:
    """Which kernels the optimized ops of each name, stack and line ended in."""

    __slots__ = (
        "by_stack",
        "by_line",
        "by_name",
        "by_primitive",
        "by_position",
        "free",
        "free_names",
    )

    def __init__(self) -> None:
        self.by_stack: dict[tuple, list[str]] = {}
        self.by_line: dict[tuple[str, str], list[str]] = {}
        self.by_name: dict[str, list[str]] = {}
        self.by_primitive: dict[tuple[str, str], list[str]] = {}
        # By the user's frame with its column: (file, line, column) and the primitive.
        self.by_position: dict[tuple, list[str]] = {}
        # Ops outside every kernel that only rename memory (bitcast, tuple...): their opcode.
        self.free: dict[tuple, str] = {}
        self.free_names: dict[str, str] = {}

    @staticmethod
    def _add(table: dict, key: Any, kernel: str) -> None:
        names = table.setdefault(key, [])
        if kernel not in names:
            names.append(kernel)

    def add(self, op_name: str, stack: Sequence[StackFrame], source: str, kernel: str) -> None:
        frames = _frame_key(stack)
        position = _position(stack)
        if position is not None:
            self._add(self.by_position, position, kernel)
        for part in op_name.split(";"):
            if not part:
                continue
            self._add(self.by_stack, (part, frames), kernel)
            self._add(self.by_line, (part, source), kernel)
            self._add(self.by_name, part, kernel)
            primitive = part.rsplit("/", 1)[-1]
            self._add(self.by_primitive, (source, primitive), kernel)
            if position is not None:
                self._add(self.by_position, (*position, primitive), kernel)

    def of(self, op_name: str, stack: Sequence[StackFrame], source: str) -> list[str]:
        """The kernels an op of an earlier stage ended in: same name and stack, else same name
        and line, else (an op that lost its line) same name."""
        frames = _frame_key(stack)
        out: list[str] = []
        for part in op_name.split(";"):
            found = (
                self.by_stack.get((part, frames))
                or self.by_line.get((part, source))
                or (self.by_name.get(part) if not source else None)
                or []
            )
            out.extend(k for k in found if k not in out)
        return out

    def of_equation(self, stack: Sequence[StackFrame], source: str, primitive: str) -> list[str]:
        """The kernels a jaxpr equation ended in: the ops of its primitive at its very
        position (line and column), else every op at that position (a primitive lowered to
        others: ``logistic`` to ``neg``, ``exp``, ``div``), else its primitive on its line."""
        position = _position(stack)
        if position is not None:
            found = self.by_position.get((*position, primitive)) or self.by_position.get(position)
            if found:
                return list(found)
        return list(self.by_primitive.get((source, primitive), ()))

    def add_free(self, inst: Instruction, source: str) -> None:
        self.free_names[inst.name] = inst.opcode
        frames = _frame_key(inst.stack)
        for part in inst.metadata.op_name.split(";"):
            if part:
                self.free.setdefault((part, frames), inst.opcode)
                self.free.setdefault((part, source), inst.opcode)

    def fate(self, op_name: str, stack: Sequence[StackFrame], source: str, name: str = "") -> str:
        """What became of an op that is in no kernel: the free opcode it turned into, or
        ``"removed"``."""
        if name and name in self.free_names:
            return self.free_names[name]
        frames = _frame_key(stack)
        for part in op_name.split(";"):
            found = self.free.get((part, frames)) or self.free.get((part, source))
            if found:
                return found
        return "removed"


def _inst_text(inst: Instruction) -> str:
    operands = ", ".join(o.name for o in inst.operands)
    return _cut(f"{inst.name} = {inst.shape_text} {inst.opcode}({operands})")


def _members(inst: Instruction) -> list[Instruction]:
    if inst.opcode == "fusion":
        fused = inst.fused_computation
        return [i for i in fused.instructions if i.opcode != "parameter"] if fused else []
    return [inst]


class _Builder:
    """Collects ops into lines, remembering each source's frame for the line's file and code."""

    __slots__ = ("lines", "frames", "unattributed", "unlinked")

    def __init__(self) -> None:
        self.lines: dict[str, SourceLine] = {}
        self.frames: dict[str, StackFrame | None] = {}
        self.unattributed: dict[str, int] = {}
        # HLO ops before optimization that found no kernel, by (opcode, shape): a kernel that
        # lost its metadata may hold one of them (see _infer).
        self.unlinked: dict[tuple[str, str], list[tuple[str, str]]] = {}

    def add(self, op: LinkedOp, stack: Sequence[StackFrame]) -> None:
        if not op.source:
            self.unattributed[str(op.stage)] = self.unattributed.get(str(op.stage), 0) + 1
            return
        line = self.lines.get(op.source)
        if line is None:
            line = self.lines[op.source] = SourceLine(op.source)
            self.frames[op.source] = _frame_of(op.source, stack)
        line.ops.setdefault(op.stage, []).append(op)

    def add_kernel(self, source: str, kernel: str, inferred: bool = False) -> None:
        line = self.lines.get(source)
        if line is None:
            line = self.lines[source] = SourceLine(source)
            self.frames[source] = None
        names = line.inferred_kernels if inferred else line.kernels
        if kernel not in names:
            names.append(kernel)

    def finish(self, snapshot: Mapping[str, str] | None = None) -> list[SourceLine]:
        """The lines, in source order, each with its code (``snapshot``: the source files
        as the program's capture ran them, else the files as they are now)."""
        for source, line in self.lines.items():
            frame = self.frames.get(source)
            if frame is not None:
                line.file, line.line, line.function = frame.file, frame.line, frame.function
                line.code = code_line(frame.file, frame.line, snapshot)
        return sorted(self.lines.values(), key=_line_order)


def _line_order(line: SourceLine) -> tuple:
    return (line.file == "", line.file, line.line, line.function, line.source)


def _frame_of(source: str, stack: Sequence[StackFrame]) -> StackFrame | None:
    frame = user_frame(stack)
    return frame if frame is not None and str(frame) == source else None


def _kernels_and_members(
    after: Module, builder: _Builder, index: _KernelIndex
) -> dict[str, ExplainedKernel]:
    """Every kernel of the fusion report, its members added to their lines and the index."""
    report = fusion_report(after)
    explained: dict[str, ExplainedKernel] = {}
    for kernel in report.kernels:
        inst = after.computation(kernel.computation).get(kernel.name)
        members = _members(inst) if inst is not None else []
        for member in members:
            source = op_source(member)
            stack = member.stack
            op_name = member.metadata.op_name
            op = LinkedOp(
                Stage.OPTIMIZED_HLO,
                member.name,
                member.opcode,
                op_name,
                source,
                _inst_text(member),
                member.line,
                [kernel.name],
                kernel.name,
            )
            builder.add(op, stack)
            if source:
                builder.add_kernel(source, kernel.name)
            index.add(op_name, stack, source, kernel.name)
        explained[kernel.name] = ExplainedKernel(
            kernel.name,
            kernel.computation,
            kernel.where,
            kernel.opcode,
            kernel.kind,
            kernel.backend_kind,
            kernel.signature,
            kernel.op_name,
            len(kernel.ops),
            list(kernel.sources),
        )
    for comp in after.computations:
        if comp.is_fusion_computation:
            continue
        for inst in comp.instructions:
            if inst.opcode in FREE_OPCODES and inst.opcode != "parameter":
                index.add_free(inst, op_source(inst))
    return explained


def _call_scopes(module: Module) -> dict[str, str]:
    """The ``op_name`` prefix of each computation a ``call`` runs (directly, or through the
    loops and branches inside it), as XLA's call inliner will prepend it.

    jax lowers a nested ``jax.jit``, a ``closed_call`` or a scan body jax outlined to a
    computation whose ops are named relative to it (``mul``); when XLA inlines the call they
    become ``jit(f)/while/body/closed_call/mul``, the names the optimized module has."""
    scopes: dict[str, str] = {}

    def scope_of(comp: Any, depth: int) -> str:
        known = scopes.get(comp.name)
        if known is not None:
            return known
        scopes[comp.name] = ""  # a cycle (or a computation nothing calls) has no prefix
        caller = next(iter(comp.callers), None) if depth < _CALL_DEPTH else None
        prefix = ""
        if caller is not None and caller.computation is not None:
            outer = scope_of(caller.computation, depth + 1)
            if caller.opcode == "call":
                prefix = join_scope(outer, caller.metadata.op_name)
            elif caller.opcode != "fusion":
                prefix = outer
        scopes[comp.name] = prefix
        return prefix

    for comp in module.computations:
        scope_of(comp, 0)
    return scopes


def _add_before(before: Module, builder: _Builder, index: _KernelIndex | None) -> None:
    scopes = _call_scopes(before)
    for comp in before.computations:
        prefix = scopes.get(comp.name, "")
        for inst in comp.instructions:
            if inst.opcode == "parameter":
                continue
            source = op_source(inst)
            stack = inst.stack
            op_name = inst.metadata.op_name
            if prefix and op_name:
                op_name = join_scope(prefix, op_name)
            kernels = index.of(op_name, stack, source) if index is not None else []
            op = LinkedOp(
                Stage.HLO, inst.name, inst.opcode, op_name, source, _inst_text(inst), inst.line
            )
            op.kernels = kernels
            if index is not None and not kernels:
                op.fate = index.fate(op_name, stack, source, inst.name)
                if inst.opcode == "call":  # XLA inlines it: its ops are in kernels of their own
                    op.fate = "inlined"
                if source and inst.opcode in _DISTINCT_OPCODES:
                    builder.unlinked.setdefault(_op_key(inst), []).append((source, inst.name))
            builder.add(op, stack)


def _add_stablehlo(
    text: str, module_name: str, builder: _Builder, index: _KernelIndex | None
) -> None:
    for found in stablehlo_ops(text):
        # Ops named only by their function's scope (`jit(f)`: constants, the results) carry
        # the caller's frame, not a line of the function: like their HLO, they have no source.
        # An op of a private function has a name of its own, made absolute by stablehlo_ops.
        scoped = "/" in found.op_name or (found.private and bool(found.op_name))
        source = source_of(found.stack, found.op_name, module_name) if scoped else ""
        kernels = index.of(found.op_name, found.stack, source) if index is not None else []
        if index is not None:
            for op_name, stack in found.other_sites:
                kernels.extend(k for k in index.of(op_name, stack, source) if k not in kernels)
        op = LinkedOp(
            Stage.STABLEHLO,
            found.name or found.op,
            found.op,
            found.op_name,
            source,
            _cut(found.text),
            found.line,
            kernels,
        )
        if index is not None and not kernels:
            op.fate = "inlined" if found.callee else index.fate(found.op_name, found.stack, source)
        builder.add(op, found.stack)


def _add_jaxpr(sources: JaxprSources, builder: _Builder, index: _KernelIndex | None) -> None:
    for equation in sources.equations:
        source = source_of(equation.stack, "", "") if equation.stack else ""
        kernels = (
            index.of_equation(equation.stack, source, equation.primitive)
            if index is not None and source
            else []
        )
        op = LinkedOp(
            Stage.JAXPR,
            f"#{equation.index}",
            equation.primitive,
            "/".join(p for p in (equation.name_stack, equation.primitive) if p),
            source,
            _cut(("  " * equation.depth) + equation.text),
            equation.index + 1,
            kernels,
        )
        if index is not None and not kernels:
            op.fate = "removed" if not equation.holds_jaxprs else "inlined"
        builder.add(op, equation.stack)

"""One side (A or B) of a diff: its main module's kernels, and each kernel's ops.

:class:`DiffSide` is what the matcher reads. Each op (:class:`_Op`) carries what provenance
says about it: its opcode, its shape without layout, its name as :func:`provenance_name`
makes it, its source line and whole call stack, and whether it may anchor its kernel (ops XLA
copies freely into many kernels may not, see :func:`_mark_anchors`). A side is built from a
parsed module (:func:`_side_from_module`, everything known) or from a fusion report alone
(:func:`_side_from_report`: opcodes and source lines, no names or shapes); when one side of a
diff knows less, :func:`_without_detail` makes the other side forget the same.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...hlo.model import Module
from ..fusions import UNKNOWN_SOURCE, FusionReport, Kernel, fusion_report
from ._names import _WHERE, provenance_name, without_layout

if TYPE_CHECKING:  # pragma: no cover
    from ...hlo.model import Instruction

# Ops XLA duplicates into every kernel that wants them; alone they say nothing about which
# kernel became which.
_WEAK_OPCODES = frozenset(
    {
        "parameter",
        "constant",
        "bitcast",
        "tuple",
        "get-tuple-element",
        "broadcast",
        "iota",
        "reshape",
    }
)
# Instructions a value passes through unchanged on its way from one kernel to another.
_PASS_THROUGH = frozenset({"bitcast", "get-tuple-element"})


def _data_source(value: Instruction) -> Instruction:
    """The instruction whose data ``value`` is, through ops that move none (bitcast, gte)."""
    while value.opcode in _PASS_THROUGH and value.operands:
        value = value.operands[0]
    return value


@dataclass(slots=True)
class _Op:
    """One op of a kernel (a fused instruction, or the kernel's own instruction if unfused)."""

    kernel: int  # index into DiffSide.kernels
    pos: int  # position inside its kernel
    opcode: str
    shape: str  # without layout: layouts are a poor key across compiles
    name: str  # op_name without the outer jit(...)/
    where: str  # "file:line (function)", "" if unknown
    file: str
    line: int
    anchor: bool = True
    # The whole call stack, innermost first, as (file, line, column, function): the same code
    # reached from two call sites (two blocks built by two calls) has two stacks.
    stack: tuple[tuple[str, int, int, str], ...] = ()

    @property
    def origin(self) -> Hashable:
        """Where the op came from, as precisely as this side knows: the stack, else the line."""
        return self.stack or self.where


@dataclass(slots=True)
class DiffSide:
    """One side (A or B) of a diff: its main module's kernels and their ops."""

    label: str
    module: str
    kernels: list[Kernel]
    report: FusionReport
    ops: list[_Op] = field(repr=False)
    # The kernel instructions (None when built from a FusionReport alone).
    instructions: list[Instruction | None] = field(repr=False)
    # The module's source files as they were when it was captured (``Module.source_files``).
    source_files: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def totals(self) -> dict[str, int]:
        """Kernel count and summed boundary bytes, FLOPs and transcendentals."""
        return {
            "kernels": len(self.kernels),
            "bytes": sum(k.cost.bytes_accessed for k in self.kernels),
            "flops": sum(k.cost.flops for k in self.kernels),
            "transcendentals": sum(k.cost.transcendentals for k in self.kernels),
        }


def _side(value: Any, label: str | None) -> DiffSide:
    if isinstance(value, DiffSide):
        return value
    if isinstance(value, FusionReport):
        return _side_from_report(value, label or ", ".join(value.summary.modules))
    if isinstance(value, Module):
        return _side_from_module(value, label or value.name)
    kind = type(value).__name__
    if isinstance(value, (str, bytes)) or hasattr(value, "__fspath__"):
        hint = (
            "resolve it first: hloscope.parse(PATH), or hloscope.diff(A, B), which takes "
            "TARGETs and picks each side's main module"
        )
    elif isinstance(value, (list, tuple)):
        hint = "pass one module per side (of several, pick the main one: Target.main_module())"
    else:
        hint = "pass a Module or a FusionReport"
    raise TypeError(f"cannot diff a {kind}: {hint}")


class _Strings:
    """Caches for the per-op string work (a module repeats a few shapes and lines thousands of
    times)."""

    def __init__(self) -> None:
        self.shapes: dict[str, str] = {}
        self.names: dict[str, str] = {}
        self.wheres: dict[str, tuple[str, int]] = {}
        self.stacks: dict[Hashable, tuple[tuple[str, int, int, str], ...]] = {}

    def shape(self, text: str) -> str:
        out = self.shapes.get(text)
        if out is None:
            out = self.shapes[text] = without_layout(text)
        return out

    def name(self, op_name: str) -> str:
        out = self.names.get(op_name)
        if out is None:
            out = self.names[op_name] = provenance_name(op_name)
        return out

    def stack(self, inst: Instruction) -> tuple[tuple[str, int, int, str], ...]:
        """``inst.stack`` as a hashable tuple, worked out once per stack frame id."""
        frame_id, file, line = inst.location  # read without decoding the whole metadata
        key: Hashable = frame_id or (file, line)
        out = self.stacks.get(key)
        if out is None:
            frames = inst.stack
            out = self.stacks[key] = tuple((f.file, f.line, f.column, f.function) for f in frames)
        return out

    def where(self, where: str) -> tuple[str, int]:
        out = self.wheres.get(where)
        if out is None:
            m = _WHERE.match(where)
            out = self.wheres[where] = (m.group("file"), int(m.group("line"))) if m else (where, 0)
        return out


def _side_from_module(module: Module, label: str) -> DiffSide:
    report = fusion_report(module)
    strings = _Strings()
    # An op's name and stack come from its metadata alone: ops with one attribute text (a
    # layer's ops repeat theirs) share them.
    by_attributes: dict[str, tuple[str, tuple[tuple[str, int, int, str], ...]]] = {}
    ops: list[_Op] = []
    instructions: list[Instruction | None] = []
    # The report lists each kernel's ops with their source lines, in the order of `members`.
    sources = report.op_sources
    at = 0
    for ki, kernel in enumerate(report.kernels):
        start, at = at, at + len(kernel.ops)
        inst = module.computation(kernel.computation).get(kernel.name)
        instructions.append(inst)
        if inst is None:  # pragma: no cover - the report is built from this module
            continue
        fused = inst.fused_computation
        if fused is not None:
            members = [i for i in fused.instructions if i.opcode != "parameter"]
        else:
            members = [inst]
        for pos, member in enumerate(members):
            where = sources[start + pos][0]
            if where == UNKNOWN_SOURCE:
                where = ""
            file, line = strings.where(where) if where else ("", 0)
            attributes = member.attr_text
            known = by_attributes.get(attributes)
            if known is None:
                known = by_attributes[attributes] = (
                    strings.name(member.op_name),
                    strings.stack(member),
                )
            shape = strings.shape(member.shape_text)
            ops.append(
                _Op(ki, pos, member.opcode, shape, known[0], where, file, line, True, known[1])
            )
    _mark_anchors(ops)
    return DiffSide(
        label, module.name, report.kernels, report, ops, instructions, module.source_files
    )


def _side_from_report(report: FusionReport, label: str) -> DiffSide:
    """A side from a report alone: ops have opcodes and source lines, no names or shapes."""
    kernels = report.kernels
    modules = list(dict.fromkeys(k.module for k in kernels))
    if len(modules) > 1:  # the main module: the one with the most ops
        sizes = Counter(dict.fromkeys(modules, 0))
        for k in kernels:
            sizes[k.module] += len(k.ops)
        main = max(modules, key=lambda m: sizes[m])
    else:
        main = modules[0] if modules else ""
    strings = _Strings()
    ops: list[_Op] = []
    chosen: list[Kernel] = []
    at = 0
    sources = report.op_sources
    for kernel in kernels:
        start, at = at, at + len(kernel.ops)
        if kernel.module != main:
            continue
        ki = len(chosen)
        chosen.append(kernel)
        rows = sources[start:at]
        aligned = len(rows) == len(kernel.ops) and all(r[1] == kernel.name for r in rows)
        for pos, opcode in enumerate(kernel.ops):
            where = rows[pos][0] if aligned and not rows[pos][0].startswith("<") else ""
            file, line = strings.where(where) if where else ("", 0)
            ops.append(_Op(ki, pos, opcode, "", "", where, file, line))
    _mark_anchors(ops)
    sub = FusionReport(chosen, report.summary, [])
    return DiffSide(label, main, chosen, sub, ops, [None] * len(chosen))


def _mark_anchors(ops: list[_Op]) -> None:
    """Weak ops anchor a kernel only when the kernel has nothing else."""
    strong: set[int] = {op.kernel for op in ops if op.opcode not in _WEAK_OPCODES}
    for op in ops:
        op.anchor = op.opcode not in _WEAK_OPCODES or op.kernel not in strong


def _detailed(side: DiffSide) -> bool:
    """Whether the side's ops carry names and shapes (built from a module, not a report)."""
    return any(inst is not None for inst in side.instructions)


def _without_detail(side: DiffSide) -> DiffSide:
    ops = [
        _Op(op.kernel, op.pos, op.opcode, "", "", op.where, op.file, op.line, op.anchor, ())
        for op in side.ops
    ]
    return DiffSide(
        side.label,
        side.module,
        side.kernels,
        side.report,
        ops,
        side.instructions,
        side.source_files,
    )

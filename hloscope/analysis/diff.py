"""The kernel diff: what changed between two compilations, kernel by kernel.

You refactor a layer, bump jax, change a flag, and the program gets slower. :func:`diff` puts
the optimized HLO of *before* (A) and *after* (B) side by side and says which kernels XLA made
differently, from which source lines, and what it costs in bytes moved through memory and FLOPs.

Kernel names are no help: XLA numbers fusions in the order it builds them, so ``fusion.3`` in A
and ``fusion.3`` in B need not have anything in common. Kernels are matched through their
**provenance** instead, in this order, each step working only on what the previous ones left:

1. Kernels made of the same code: the same multiset of ops by ``op_name``, opcode and whole
   call stack, then (code that moved) by ``op_name`` and opcode alone. Op names are compared
   through :func:`provenance_name`: JAX's outer ``jit(f)/`` dropped (``jit(fused)/mul`` and
   ``jit(split)/mul`` are one name) and what ``jax.checkpoint`` adds (``checkpoint``, a
   repeated ``jvp``) normalized away; its recomputed ops keep their ``rematted_computation``
   mark, so that the recomputation shows as kernels B added. Models repeat themselves:
   blocks built by the same code have kernels alike in all of this when neither a named scope
   (Flax's module path) nor the caller's line tells them apart. Such twins are told apart by
   what they read: the same entry parameters (a block's own weights), producers and consumers
   already paired with each other, then shapes, then the fused ops; a pair is formed only when
   each kernel is the other's single best candidate, and pairing one tells its neighbours more,
   so the evidence spreads along the graph. Only a tie that nothing breaks falls back to the
   schedule order. (See :meth:`_Matcher._pair_kernels_by` for why this is greedy and not an
   optimal assignment.)
2. The ops of the remaining kernels, paired one to one by provenance: same name, opcode,
   shape and ``file:line``; then same name, opcode and line (the shape changed); then, for code
   that moved (lines shifted, or the function was renamed), the longest common subsequence of
   the two op sequences in source order, keyed by name, opcode and shape, then by name and
   opcode (shapes changed); then any remaining ops with equal keys in order; finally names
   with numbers masked (TensorFlow's ``dense_1`` vs ``dense_2``).
3. Two kernels are linked when paired ops join them. Broadcasts, constants, bitcasts and other
   ops XLA freely copies into several kernels only link kernels made of nothing else, and a
   link carrying under a quarter of both kernels' ops is dropped (unless it is a kernel's only
   one), so that one ambiguous op does not glue unrelated kernels together.
4. Kernels left without a link are paired by the multiset of their ops (opcodes and shapes,
   then opcodes alone with the same op names), with the same best-candidate rule as step 1.

Each connected group of kernels is one :class:`KernelChange`:

``unchanged``  one kernel each side with the same ops (opcodes and shapes), bytes and FLOPs;
``changed``    one kernel each side, different ops, shapes, bytes or FLOPs;
``split``      one kernel in A whose ops now spread over several kernels in B: the values that
               passed between them inside the kernel now go through memory;
``merged``     several kernels of A fused into one kernel in B;
``regrouped``  several kernels of A whose ops are now spread differently over several in B;
``added``      a kernel of B with no counterpart in A; ``removed``: the converse.

Attributes other than shapes (constant values, comparison directions, dimensions) are not
compared: a kernel with the same ops, shapes and cost is unchanged. Bytes are the boundary
bytes of :mod:`hloscope.analysis.cost` (what each kernel reads and writes); every kernel is in
exactly one change, so the changes' deltas add up to the totals'.

:attr:`KernelDiff.lines` turns it around by source line: for each line whose ops moved, how
many kernels they were and are in, and which other lines they no longer (or now) share a
kernel with. Lines of A are mapped to lines of B through the paired ops, so a shifted line
is followed to where it went.

Inputs are each a parsed :class:`~hloscope.hlo.model.Module` or a
:class:`~hloscope.analysis.fusions.FusionReport`. A FusionReport carries no op names or op
shapes, so reports are matched by opcode and source line only; pass modules where you can. To
diff TARGETs (HLO files, dump folders, scripts), resolve them first: ``hloscope.diff(A, B)``
does, and picks the main module of a target that holds several.

The results are data: statuses are :class:`ChangeStatus` / :class:`LineStatus` members (equal
to their strings), :meth:`KernelDiff.regressions` gives :class:`Regression` records. The words
(a sentence per change, regression lines, the JSON with messages) are
:mod:`hloscope.render.diff_text`'s.
"""

from __future__ import annotations

import difflib
import operator
import re
from collections import Counter, deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import repeat
from typing import TYPE_CHECKING, Any

from ..hlo._gc import gc_paused
from ..hlo.model import Module
from .fusions import UNKNOWN_SOURCE, FusionReport, Kernel, fusion_report

if TYPE_CHECKING:  # pragma: no cover
    from ..hlo.model import Instruction

__all__ = [
    "diff",
    "KernelDiff",
    "KernelChange",
    "LineChange",
    "DiffSide",
    "MemoryEdge",
    "Regression",
    "ChangeStatus",
    "LineStatus",
    "STATUSES",
    "METRICS",
    "DIFF_SCHEMA",
    "without_layout",
    "without_outer_jit",
    "provenance_name",
    "parse_where",
]


class ChangeStatus(StrEnum):
    """What happened to a group of kernels (see the module docstring). Members equal their
    values (``ChangeStatus.SPLIT == "split"``), so JSON and string comparisons are unchanged."""

    SPLIT = "split"
    MERGED = "merged"
    REGROUPED = "regrouped"
    CHANGED = "changed"
    ADDED = "added"
    REMOVED = "removed"
    UNCHANGED = "unchanged"


class LineStatus(StrEnum):
    """What happened to the kernels of one source line (see :class:`LineChange`)."""

    MORE_KERNELS = "more kernels"
    FEWER_KERNELS = "fewer kernels"
    REGROUPED = "regrouped"
    SEPARATED = "separated"
    JOINED = "joined"
    ADDED = "added"
    REMOVED = "removed"


#: Change classes, in the order the report lists them (the enum's definition order).
STATUSES: tuple[ChangeStatus, ...] = tuple(ChangeStatus)
#: Totals that :meth:`KernelDiff.regressions` can check.
METRICS: tuple[str, ...] = ("kernels", "bytes", "flops", "transcendentals")
#: ``schema`` of :meth:`KernelDiff.to_dict`.
DIFF_SCHEMA = "hloscope.diff/1"

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
# A link must carry at least this share of one of its two kernels' ops to count.
_LINK_SHARE = 0.25
# JAX names every op after the jitted function: "jit(f)/..." (older: "pjit(f)/...").
_OUTER_JIT = re.compile(r"^(?:p?jit|xla_pmap|pmap)\([^/]*?\)/")
_DIGITS = re.compile(r"\d+")
_LAYOUT = re.compile(r"\{[^{}]*\}")
_WHERE = re.compile(r"^(?P<file>.*):(?P<line>\d+)(?: \((?P<function>.*)\))?$")


def without_layout(shape: str) -> str:
    """``f32[8,16]{1,0}`` -> ``f32[8,16]``: layouts are a poor key across compiles."""
    return _LAYOUT.sub("", shape) if "{" in shape else shape


def without_outer_jit(op_name: str) -> str:
    """``jit(step)/dense/mul`` -> ``dense/mul``: JAX names every op after the jitted function."""
    return _OUTER_JIT.sub("", op_name, count=1)


# Name-stack components jax.checkpoint (alias jax.remat) adds around the ops of a checkpointed
# function: "transpose(jvp(block0))/jvp(block0)/checkpoint/dot_general". Its other component,
# "rematted_computation" (the forward ops recomputed in the backward pass), stays: those ops
# are new work with no counterpart in a compile without checkpoint (their forward twins are
# paired with B's own forward ops); without the mark they would pass for backward ops of the
# same line and glue B's recomputation to A's backward kernels.
_REMAT_COMPONENTS = frozenset({"checkpoint", "remat"})
# A transform component of a JAX name stack: "transpose(jvp(block0))", "vmap()".
_TRANSFORM = re.compile(r"^(?P<transform>[A-Za-z_][\w.]*)\((?P<inner>.*)\)$", re.DOTALL)


def provenance_name(op_name: str) -> str:
    """``op_name`` as a matching key: two compiles of the same code give the same key.

    JAX's outer ``jit(f)/`` is dropped (:func:`without_outer_jit`), and so is the
    ``checkpoint`` component ``jax.checkpoint`` adds (``rematted_computation``, which marks
    recomputed ops, stays). Checkpointing also nests the block's transforms once more, so the
    transforms and the scopes of the name stack are each kept in order with repeats dropped:

        >>> provenance_name("jit(step)/transpose(jvp(block0))/dot_general")
        'transpose(jvp(block0/dot_general))'
        >>> provenance_name(
        ...     "jit(step_remat)/transpose(jvp(block0))/jvp(block0)/checkpoint/dot_general"
        ... )
        'transpose(jvp(block0/dot_general))'
        >>> provenance_name("jit(step_remat)/transpose(jvp(jvp()))/checkpoint/dot_general")
        'transpose(jvp(dot_general))'

    Names without transforms (TensorFlow's ``sequential/dense_1/MatMul``) come back as they
    are. The price of dropping repeats: ``jvp(jvp())`` (a second derivative) and ``jvp()`` get
    the same key, and the other evidence (shapes, operands) has to tell them apart.
    """
    name = without_outer_jit(op_name)
    if "(" not in name and not any(c in name for c in _REMAT_COMPONENTS):
        return name
    transforms: list[str] = []
    scopes: list[str] = []
    _decompose(name, transforms, scopes)
    body = "/".join(scopes)
    return "(".join([*transforms, body]) + ")" * len(transforms)


def _decompose(text: str, transforms: list[str], scopes: list[str]) -> None:
    """Append the transforms and scopes of a name stack, in order, without repeats."""
    for part in _components(text):
        if part in _REMAT_COMPONENTS:
            continue
        m = _TRANSFORM.match(part)
        if m is None:
            if part and (not scopes or scopes[-1] != part):
                scopes.append(part)
            continue
        if not transforms or transforms[-1] != m.group("transform"):
            transforms.append(m.group("transform"))
        _decompose(m.group("inner"), transforms, scopes)


def _components(text: str) -> list[str]:
    """Split a name stack at the ``/`` that are not inside parentheses."""
    parts: list[str] = []
    depth = start = 0
    for n, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        elif char == "/" and depth == 0:
            parts.append(text[start:n])
            start = n + 1
    parts.append(text[start:])
    return parts


def parse_where(where: str) -> tuple[str, int, str] | None:
    """``"model.py:12 (f)"`` -> ``("model.py", 12, "f")`` (function ``""`` when not given);
    ``None`` for text that is not ``file:line``."""
    m = _WHERE.match(where)
    if m is None:
        return None
    return m.group("file"), int(m.group("line")), m.group("function") or ""


# Instructions a value passes through unchanged on its way from one kernel to another.
_PASS_THROUGH = frozenset({"bitcast", "get-tuple-element"})
_SHAPE_TEXT = operator.attrgetter("shape_text")


def _data_source(value: Instruction) -> Instruction:
    """The instruction whose data ``value`` is, through ops that move none (bitcast, gte)."""
    while value.opcode in _PASS_THROUGH and value.operands:
        value = value.operands[0]
    return value


# ------------------------------------------------------------------------------------------
# One side of the diff
# ------------------------------------------------------------------------------------------


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
    return DiffSide(label, module.name, report.kernels, report, ops, instructions)


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


# ------------------------------------------------------------------------------------------
# Results
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MemoryEdge:
    """An array one kernel writes and another reads (a value between kernels goes through
    memory)."""

    producer: str
    consumer: str
    shape: str
    bytes: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "producer": self.producer,
            "consumer": self.consumer,
            "shape": self.shape,
            "bytes": self.bytes,
        }


def _side_total(side: str, cost_field: str) -> property:
    """A read-only total: ``cost_field`` of the kernels' costs, summed over ``side``."""

    def total(change: KernelChange) -> int:
        return sum(getattr(k.cost, cost_field) for k in getattr(change, side))

    return property(total, doc=f"{cost_field} summed over the kernels of {side.upper()}.")


@dataclass(slots=True)
class KernelChange:
    """A group of kernels of A and the kernels of B their ops ended up in."""

    status: ChangeStatus
    a: list[Kernel]
    b: list[Kernel]
    ops_added: dict[str, int] = field(default_factory=dict)  # opcode -> count, B minus A
    ops_removed: dict[str, int] = field(default_factory=dict)
    shape_changes: list[tuple[str, str, int]] = field(
        default_factory=list
    )  # (A shape, B shape, ops)
    # Split/regrouped: arrays between B's kernels of this group, now written and read back.
    # Merged: arrays between A's kernels that no longer leave the kernel.
    through_memory: list[MemoryEdge] = field(default_factory=list)

    # Totals of each side (``bytes_a``, ``flops_b``...), summed over its kernels.
    bytes_a = _side_total("a", "bytes_accessed")
    bytes_b = _side_total("b", "bytes_accessed")
    flops_a = _side_total("a", "flops")
    flops_b = _side_total("b", "flops")
    transcendentals_a = _side_total("a", "transcendentals")
    transcendentals_b = _side_total("b", "transcendentals")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types; the sentence that says what happened is
        :func:`hloscope.render.diff_text.describe`'s (``diff_to_dict`` adds it as ``message``)."""
        return {
            "status": self.status.value,
            "a": [_kernel_dict(k) for k in self.a],
            "b": [_kernel_dict(k) for k in self.b],
            "kernels_delta": len(self.b) - len(self.a),
            "bytes_a": self.bytes_a,
            "bytes_b": self.bytes_b,
            "bytes_delta": self.bytes_b - self.bytes_a,
            "flops_a": self.flops_a,
            "flops_b": self.flops_b,
            "flops_delta": self.flops_b - self.flops_a,
            "transcendentals_a": self.transcendentals_a,
            "transcendentals_b": self.transcendentals_b,
            "transcendentals_delta": self.transcendentals_b - self.transcendentals_a,
            "ops_added": dict(self.ops_added),
            "ops_removed": dict(self.ops_removed),
            "shape_changes": [{"a": a, "b": b, "ops": n} for a, b, n in self.shape_changes],
            "through_memory": [e.to_dict() for e in self.through_memory],
        }


def _kernel_dict(k: Kernel) -> dict[str, Any]:
    return {
        "name": k.name,
        "computation": k.computation,
        "kind": k.kind,
        "signature": k.signature,
        "shape": k.shape,
        "n_ops": len(k.ops),
        "bytes": k.cost.bytes_accessed,
        "flops": k.cost.flops,
        "transcendentals": k.cost.transcendentals,
        "sources": [s for s, _ in k.sources],
    }


@dataclass(slots=True)
class LineChange:
    """A source line whose ops are grouped into kernels differently in B.

    ``status``: ``more kernels`` / ``fewer kernels`` (its ops spread over more or fewer
    kernels), ``separated`` (no longer shares a kernel with ``separated_from``), ``joined``
    (now shares one with ``joined_with``), ``regrouped`` (both), ``added`` (a line only B has
    ops from) or ``removed``. Lines are B's names where the line exists in B.
    """

    source_a: str
    source_b: str
    ops_a: int
    ops_b: int
    kernels_a: list[str]
    kernels_b: list[str]
    status: LineStatus
    separated_from: list[str] = field(default_factory=list)
    joined_with: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.__slots__:  # type: ignore[attr-defined]
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, list) else value
        out["status"] = self.status.value
        return out


@dataclass(frozen=True, slots=True)
class Regression:
    """A metric on which B is worse (larger) than A by more than ``threshold`` percent."""

    metric: str
    a: int
    b: int
    threshold: float

    @property
    def percent(self) -> float:
        """How much B grew, in percent of A (infinite when A was 0)."""
        return 100.0 * (self.b - self.a) / self.a if self.a else float("inf")


@dataclass(slots=True)
class KernelDiff:
    """The kernels of B compared with those of A (see the module docstring)."""

    a: DiffSide
    b: DiffSide
    changes: list[KernelChange]
    lines: list[LineChange]

    @property
    def counts(self) -> dict[ChangeStatus, int]:
        """How many changes of each status (every status present, zeros included)."""
        counts = Counter(c.status for c in self.changes)
        return {s: counts.get(s, 0) for s in STATUSES}

    @property
    def no_change(self) -> bool:
        """True when every kernel of A is unchanged in B and B has no other kernel."""
        return all(c.status is ChangeStatus.UNCHANGED for c in self.changes)

    @property
    def totals(self) -> dict[str, dict[str, int]]:
        """``{"a": {...}, "b": {...}, "delta": {...}}`` over :data:`METRICS`."""
        a, b = self.a.totals, self.b.totals
        return {"a": a, "b": b, "delta": {m: b[m] - a[m] for m in METRICS}}

    def changed(self) -> list[KernelChange]:
        """The changes that are not ``unchanged``."""
        return [c for c in self.changes if c.status is not ChangeStatus.UNCHANGED]

    def regressions(
        self, metrics: Iterable[str] = ("kernels", "bytes", "flops"), threshold: float = 0.0
    ) -> list[Regression]:
        """The metrics on which B is worse (larger) than A by more than ``threshold`` percent;
        an empty list when B is no worse. A metric that was 0 in A regresses on any increase.
        (:func:`hloscope.render.diff_text.regression_lines` words them.)"""
        totals = self.totals
        out: list[Regression] = []
        for metric in metrics:
            if metric not in METRICS:
                raise ValueError(f"unknown metric {metric!r} (metrics: {', '.join(METRICS)})")
            found = Regression(metric, totals["a"][metric], totals["b"][metric], threshold)
            if found.b > found.a and found.percent > threshold:
                out.append(found)
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types (schema :data:`DIFF_SCHEMA`), without the words:
        :func:`hloscope.render.diff_text.diff_to_dict` adds each change's ``message``."""
        return {
            "schema": DIFF_SCHEMA,
            "a": {"label": self.a.label, "module": self.a.module, **self.a.totals},
            "b": {"label": self.b.label, "module": self.b.module, **self.b.totals},
            "delta": self.totals["delta"],
            "no_change": self.no_change,
            "counts": {s.value: n for s, n in self.counts.items()},
            "changes": [c.to_dict() for c in self.changes],
            "lines": [line.to_dict() for line in self.lines],
        }


# ------------------------------------------------------------------------------------------
# Matching
# ------------------------------------------------------------------------------------------


@gc_paused
def diff(
    a: Module | FusionReport,
    b: Module | FusionReport,
    *,
    labels: tuple[str, str] | None = None,
) -> KernelDiff:
    """Compare the kernels of ``a`` (before) with those of ``b`` (after).

    ``a`` and ``b`` are each a parsed :class:`~hloscope.hlo.model.Module` or a
    :class:`~hloscope.analysis.fusions.FusionReport`; anything else (a path, a TARGET string,
    a list of modules) raises :class:`TypeError` (``hloscope.diff`` resolves TARGETs).
    ``labels`` name the two sides in the result (default: the module names). Deterministic:
    the same inputs give the same result, in the same order.

        >>> d = diff(hloscope.parse("before.txt"), hloscope.parse("after.txt"))
        >>> d.counts[ChangeStatus.SPLIT], d.totals["delta"]["bytes"]
    """
    label_a, label_b = labels if labels is not None else (None, None)
    side_a, side_b = _side(a, label_a), _side(b, label_b)
    if _detailed(side_a) != _detailed(side_b):
        # One side came from a FusionReport: match both on what the report knows.
        side_a, side_b = _without_detail(side_a), _without_detail(side_b)
    return _Matcher(side_a, side_b).run()


def _detailed(side: DiffSide) -> bool:
    """Whether the side's ops carry names and shapes (built from a module, not a report)."""
    return any(inst is not None for inst in side.instructions)


def _without_detail(side: DiffSide) -> DiffSide:
    ops = [
        _Op(op.kernel, op.pos, op.opcode, "", "", op.where, op.file, op.line, op.anchor, ())
        for op in side.ops
    ]
    return DiffSide(side.label, side.module, side.kernels, side.report, ops, side.instructions)


# pair_a / pair_b values other than an op index: not paired yet, or never to be paired (an op
# of a kernel already settled one to one, that B's kernel has no counterpart for).
_FREE = -1
_SETTLED = -2
# Kernel pairing scores every pair of a bucket; a bucket with more pairs than this is paired in
# schedule order instead (about 150 kernels a side).
_MAX_BUCKET_PAIRS = 20_000


def _same_everything(op: _Op) -> Hashable:
    return (op.name, op.opcode, op.shape, op.origin)


def _same_named_op(op: _Op) -> Hashable:
    return (op.name, op.opcode, op.shape)


def _same_name(op: _Op) -> Hashable:
    return (op.name, op.opcode)


def _same_shape(op: _Op) -> Hashable:
    return (op.opcode, op.shape)


def _same_opcode(op: _Op) -> Hashable:
    return op.opcode


# How the ops of two settled kernels are paired, most alike first.
_SETTLE_KEYS: tuple[Callable[[_Op], Hashable], ...] = (
    _same_everything,
    _same_named_op,
    _same_name,
    _same_shape,
    _same_opcode,
)


def _provenance_keys(
    side: DiffSide, kernel_ops: list[list[int]], with_stack: bool
) -> list[Hashable | None]:
    """Per kernel, the multiset of what its ops are by provenance: ``op_name`` (normalized by
    :func:`provenance_name`), opcode and, ``with_stack``, the whole call stack (the source
    line where a side knows no more). Weak ops count only in kernels made of nothing else.

    Multisets: ops of one line repeat (``mul`` three times in ``y * gate + 0.1 * y``), and a
    kernel holding one of them is not the kernel that held all three. Without stacks, a side
    with no op names has no key (opcodes alone say too little)."""
    ops = side.ops
    if not with_stack and not any(op.name for op in ops):
        return [None] * len(kernel_ops)
    out: list[Hashable | None] = []
    what = _NAME_OPCODE_ORIGIN if with_stack else _NAME_OPCODE
    for members in kernel_ops:
        anchors = [op for op in map(ops.__getitem__, members) if op.anchor]
        out.append(frozenset(Counter(map(what, anchors)).items()) or None)
    return out


_NAME_OPCODE_ORIGIN = operator.attrgetter("name", "opcode", "origin")
_NAME_OPCODE = operator.attrgetter("name", "opcode")


def _by_shapes(side: DiffSide, kernel_ops: list[list[int]], k: int) -> Hashable:
    """The kernel's kind and the multiset of its ops' opcodes and shapes."""
    kern = side.kernels[k]
    ops = sorted((side.ops[i].opcode, side.ops[i].shape) for i in kernel_ops[k])
    shape = kern.shape if ops and not ops[0][1] else ""  # a side without op shapes
    return (kern.opcode, kern.kind, kern.backend_kind, shape, tuple(ops))


def _by_opcodes(side: DiffSide, kernel_ops: list[list[int]], k: int) -> Hashable:
    """The kernel's kind, its ops' opcodes and their names with numbers masked."""
    kern = side.kernels[k]
    ops = sorted(side.ops[i].opcode for i in kernel_ops[k])
    names = sorted({_DIGITS.sub("#", side.ops[i].name) for i in kernel_ops[k]} - {""})
    return (kern.opcode, kern.kind, kern.backend_kind, tuple(ops), tuple(names))


def _single_best(scores: Sequence[tuple[int, ...]]) -> int | None:
    """The index of the highest score, or None when it is tied."""
    best = max(scores)
    return scores.index(best) if scores.count(best) == 1 else None


def _shared(a: Counter[Any], b: Counter[Any]) -> int:
    """The size of the multiset intersection of ``a`` and ``b`` (``Counter.__and__`` builds the
    intersection; this only counts it)."""
    if dict.__eq__(a, b):  # a model's repeated blocks, compared in C (Counter.__eq__ is not)
        return sum(a.values())
    if len(b) < len(a):
        a, b = b, a
    return sum(min(n, b[k]) for k, n in a.items() if k in b)


class _Interned:
    """Numbers for the distinct values of one kind (a kernel's shape multiset, say) over both
    sides of a diff, and the overlap of two such values worked out once per pair of numbers:
    a deep model's repeated blocks have a few distinct values among thousands of kernels."""

    __slots__ = ("numbers", "values", "_overlaps")

    def __init__(self) -> None:
        self.numbers: dict[Hashable, int] = {}
        self.values: list[Counter[Any]] = []
        self._overlaps: dict[tuple[int, int], int] = {}

    def number(self, counts: Counter[Any]) -> int:
        key = frozenset(counts.items())
        n = self.numbers.get(key)
        if n is None:
            n = self.numbers[key] = len(self.values)
            self.values.append(counts)
        return n

    def overlaps(self, a: int, bs: Iterable[int]) -> dict[int, int]:
        """``{b: size of the multiset intersection of values a and b}`` for each of ``bs``."""
        out = {}
        for b in bs:
            key = (a, b)
            n = self._overlaps.get(key)
            if n is None:
                n = self._overlaps[key] = _shared(self.values[a], self.values[b])
            out[b] = n
        return out


@dataclass(slots=True)
class _KernelFacts:
    """What :meth:`_Matcher._score` compares, per kernel of one side."""

    params: list[Counter[Hashable]]  # the parameters it reads ("parameter 3")
    readers: dict[Hashable, list[tuple[int, int]]]  # parameter -> (kernel, times it reads it)
    producers: list[set[int]]  # kernels it reads
    consumers: list[set[int]]  # kernels that read it
    io_shapes: list[int]  # its output shape and its operands' shapes, no layouts (numbered)
    op_shapes: list[int]  # its ops' opcodes and shapes (numbered)
    structure: list[int]  # kind, shape and cost (see _structure; numbered)
    order: list[float]  # its position in the schedule, 0 to 1

    @classmethod
    def of(
        cls,
        side: DiffSide,
        kernel_ops: list[list[int]],
        shapes: _Interned,
        ops: _Interned,
        structures: dict[Hashable, int],
    ) -> _KernelFacts:
        producers, consumers = _kernel_graph(side)
        last = max(len(side.kernels) - 1, 1)
        io_shapes: list[int] = []
        shape_of = _Strings().shape  # without its layout, worked out once per shape
        for kernel, inst in zip(side.kernels, side.instructions):
            counts = Counter([shape_of(kernel.shape)])
            if inst is not None:
                counts.update(map(shape_of, map(_SHAPE_TEXT, inst.operands)))
            io_shapes.append(shapes.number(counts))
        params = [
            Counter(x for x in links if isinstance(x, str) and x.startswith("parameter "))
            for links in producers
        ]
        readers: dict[Hashable, list[tuple[int, int]]] = {}
        for k, counts in enumerate(params):
            for token, n in counts.items():
                readers.setdefault(token, []).append((k, n))
        op_counts = (
            Counter((side.ops[i].opcode, side.ops[i].shape) for i in m) for m in kernel_ops
        )
        return cls(
            params=params,
            readers=readers,
            producers=[{x for x in links if isinstance(x, int)} for links in producers],
            consumers=[{x for x in links if isinstance(x, int)} for links in consumers],
            io_shapes=io_shapes,
            op_shapes=list(map(ops.number, op_counts)),
            structure=[structures.setdefault(_structure(k), len(structures)) for k in side.kernels],
            order=[n / last for n in range(len(side.kernels))],
        )


class _Matcher:
    def __init__(self, a: DiffSide, b: DiffSide) -> None:
        self.a, self.b = a, b
        self.pair_a = [_FREE] * len(a.ops)  # op index of A -> paired op index of B
        self.pair_b = [_FREE] * len(b.ops)
        self.kernel_ops_a = _ops_by_kernel(a)
        self.kernel_ops_b = _ops_by_kernel(b)
        # Kernel names can repeat across computations; identity is the position.
        self.index_a = {id(k): n for n, k in enumerate(a.kernels)}
        self.index_b = {id(k): n for n, k in enumerate(b.kernels)}
        # Shapes, op multisets and structures numbered over both sides: equal means equal.
        self._shapes, self._ops, structures = _Interned(), _Interned(), {}
        self.facts_a = _KernelFacts.of(a, self.kernel_ops_a, self._shapes, self._ops, structures)
        self.facts_b = _KernelFacts.of(b, self.kernel_ops_b, self._shapes, self._ops, structures)
        # Kernels settled one to one (steps 1 and 4): kernel of A -> kernel of B and back.
        self.partner_a: dict[int, int] = {}
        self.partner_b: dict[int, int] = {}

    def run(self) -> KernelDiff:
        groups = self._pair_by_provenance()
        self._pair_ops()
        groups += self._linked_groups(set(self.partner_a), set(self.partner_b))
        changes = [self._change(ka_list, kb_list) for ka_list, kb_list in groups]
        changes.sort(
            key=lambda c: (
                STATUSES.index(c.status),
                -abs(c.bytes_b - c.bytes_a) - abs(c.flops_b - c.flops_a),
                self._first_index(c),
            )
        )
        return KernelDiff(self.a, self.b, changes, self._line_changes(changes))

    # -- step 1: kernels with the same provenance ---------------------------------------------

    def _pair_by_provenance(self) -> list[tuple[list[int], list[int]]]:
        """Pair kernels made of the same code: the same ops by name, opcode and call stack,
        then (for code that moved) by name and opcode alone."""
        groups = self._pair_kernels_by(
            _provenance_keys(self.a, self.kernel_ops_a, True),
            _provenance_keys(self.b, self.kernel_ops_b, True),
        )
        groups += self._pair_kernels_by(
            _provenance_keys(self.a, self.kernel_ops_a, False),
            _provenance_keys(self.b, self.kernel_ops_b, False),
        )
        return groups

    def _pair_kernels_by(
        self, keys_a: list[Hashable | None], keys_b: list[Hashable | None]
    ) -> list[tuple[list[int], list[int]]]:
        """Pair free kernels with equal keys, one to one, best match first.

        Kernels with one key form a bucket; a model's repeated blocks put one kernel per block
        in each bucket, alike in everything the key says. Within a bucket each candidate pair
        is scored by :meth:`_score` (operands first, then shapes, then the op multiset), and a
        pair is formed only when each is the other's single best-scoring candidate. Forming
        pairs tells more: a kernel whose producer was just paired now knows which kernel of B
        reads that producer's partner. So the buckets are scored again until nothing more is
        decided, and only then does the kernels' order (schedule position) break one tie per
        bucket, which may decide more on the next sweep.

        Why not an optimal assignment (scipy's ``linear_sum_assignment``)? It maximizes a sum
        and would happily pair a kernel with its second choice to give two others a slightly
        better one; here a pair is never formed while either kernel has a better-matching
        candidate left (the greedy, stable matching), and the scores it compares are tuples
        (operands outrank shapes) that a sum would have to flatten into arbitrary weights. The
        repeated scoring is also what lets evidence spread along the graph, which a single
        assignment over fixed scores cannot do.
        """
        buckets: list[tuple[list[int], list[int]]] = []
        bucket_of_a: dict[int, int] = {}
        bucket_of_b: dict[int, int] = {}
        index: dict[Hashable, int] = {}
        for ka, key in enumerate(keys_a):
            if key is not None and ka not in self.partner_a and self.kernel_ops_a[ka]:
                if key not in index:
                    index[key] = len(buckets)
                    buckets.append(([], []))
                buckets[index[key]][0].append(ka)
                bucket_of_a[ka] = index[key]
        for kb, key in enumerate(keys_b):
            if key in index and kb not in self.partner_b and self.kernel_ops_b[kb]:
                buckets[index[key]][1].append(kb)
                bucket_of_b[kb] = index[key]
        groups: list[tuple[list[int], list[int]]] = []
        for in_a, in_b in buckets:
            if len(in_a) * len(in_b) > _MAX_BUCKET_PAIRS:
                # Hundreds of kernels alike on both sides (a deep model's copies with no
                # metadata): scoring every pair, sweep after sweep, would cost more than the
                # rest of the diff; they are paired in schedule order.
                for ka, kb in zip(in_a, in_b):
                    self._settle(ka, kb)
                    groups.append(([ka], [kb]))
        dirty = {n for n, (in_a, in_b) in enumerate(buckets) if all(self._free_in((in_a, in_b)))}
        live = set(dirty)
        while live:
            # Only buckets near a new pair can decide anything new.
            decided = [pair for n in sorted(dirty) for pair in self._decided(buckets[n])]
            if not decided:
                # The evidence ties everywhere: order breaks one tie per bucket.
                decided = [self._nearest(buckets[n]) for n in sorted(live)]
            dirty = set()
            # Buckets share no kernel, and a bucket's decided pairs share none either.
            for ka, kb in decided:
                self._settle(ka, kb)
                groups.append(([ka], [kb]))
                dirty.add(bucket_of_a[ka])
                fa, fb = self.facts_a, self.facts_b
                for k in (*fa.producers[ka], *fa.consumers[ka]):
                    if k in bucket_of_a:
                        dirty.add(bucket_of_a[k])
                for k in (*fb.producers[kb], *fb.consumers[kb]):
                    if k in bucket_of_b:
                        dirty.add(bucket_of_b[k])
            live = {n for n in live if all(self._free_in(buckets[n]))}
            dirty &= live
        return groups

    def _free_in(self, bucket: tuple[list[int], list[int]]) -> tuple[list[int], list[int]]:
        return (
            [ka for ka in bucket[0] if ka not in self.partner_a],
            [kb for kb in bucket[1] if kb not in self.partner_b],
        )

    def _decided(self, bucket: tuple[list[int], list[int]]) -> list[tuple[int, int]]:
        """The pairs of a bucket in which each kernel is the other's single best candidate."""
        free_a, free_b = self._free_in(bucket)
        if not free_a or not free_b:
            return []
        if len(free_a) == 1 and len(free_b) == 1:
            return [(free_a[0], free_b[0])]
        rows = [self._row_scores(ka, free_b) for ka in free_a]
        # Each kernel's single best candidate, or None on a tie: max, count and index run in
        # C over a row (a column for B) instead of a dict update per pair.
        best_of_b = [_single_best(column) for column in zip(*rows)]
        pairs = []
        for i, row in enumerate(rows):
            j = _single_best(row)
            if j is not None and best_of_b[j] == i:
                pairs.append((free_a[i], free_b[j]))
        return pairs

    def _nearest(self, bucket: tuple[list[int], list[int]]) -> tuple[int, int]:
        """The best-scoring pair of a bucket, ties broken by the closest schedule positions."""
        free_a, free_b = self._free_in(bucket)
        order_a, order_b = self.facts_a.order, self.facts_b.order
        return max(
            ((ka, kb) for ka in free_a for kb in free_b),
            key=lambda p: (self._score(*p), -abs(order_a[p[0]] - order_b[p[1]]), -p[0], -p[1]),
        )

    def _score(self, ka: int, kb: int) -> tuple[int, int, int, int]:
        """How well kernel ``ka`` of A matches kernel ``kb`` of B, compared as a tuple:

        1. operands: the entry parameters both read, and the neighbours they agree on (a
           producer or consumer of ``ka`` whose partner is a producer or consumer of ``kb``);
        2. shapes: the output and operand shapes they share;
        3. the fused ops (opcode and shape) they share;
        4. 1 when their kind, shape and cost are all equal.
        """
        return self._row_scores(ka, (kb,))[0]

    def _row_scores(self, ka: int, kbs: Iterable[int]) -> list[tuple[int, int, int, int]]:
        """:meth:`_score` of ``ka`` against each of ``kbs``, a row of a bucket at a time.

        A deep model's buckets score millions of pairs, so nothing here runs per pair in
        Python: the operand score is counted from ka's side (the kernels of B that read
        ka's parameters, or read or feed the partners of its neighbours: a handful), the
        shape and op scores are looked up by the numbers of their values, and the rest is
        zipped in C."""
        kbs = list(kbs)
        fa, fb = self.facts_a, self.facts_b
        operands: dict[int, int] = {}
        # Each count walks whichever is shorter: the kernels that read the thing, or the row
        # (a step counter read by every kernel would make the first a walk over them all).
        for token, n in fa.params[ka].items():
            readers = fb.readers.get(token, ())
            if len(readers) > len(kbs):
                readers = [(kb, fb.params[kb][token]) for kb in kbs if token in fb.params[kb]]
            for kb, m in readers:
                operands[kb] = operands.get(kb, 0) + min(n, m)
        get = self.partner_a.get
        # A neighbour of ka agrees with kb when its partner is the same neighbour of kb.
        row_wide: list[Iterable[bool]] = []  # counts taken along the row, in C
        for neighbours, theirs in ((fa.producers, fb.consumers), (fa.consumers, fb.producers)):
            for partner in map(get, neighbours[ka]):
                if partner is None:
                    continue
                agreeing = theirs[partner]
                if len(agreeing) > len(kbs):
                    row_wide.append(map(agreeing.__contains__, kbs))
                    continue
                for kb in agreeing:
                    operands[kb] = operands.get(kb, 0) + 1
        operand_scores: Iterable[int] = map(operands.get, kbs, repeat(0))
        if row_wide:
            operand_scores = map(sum, zip(operand_scores, *row_wide))
        shapes_b = list(map(fb.io_shapes.__getitem__, kbs))
        ops_b = list(map(fb.op_shapes.__getitem__, kbs))
        shapes = self._shapes.overlaps(fa.io_shapes[ka], set(shapes_b))
        ops = self._ops.overlaps(fa.op_shapes[ka], set(ops_b))
        alike = map(fa.structure[ka].__eq__, map(fb.structure.__getitem__, kbs))
        return list(
            zip(
                operand_scores,
                map(shapes.__getitem__, shapes_b),
                map(ops.__getitem__, ops_b),
                map(int, alike),
            )
        )

    def _settle(self, ka: int, kb: int) -> None:
        """Make ``ka`` and ``kb`` partners and pair their ops, most alike first. Ops left over
        (B's kernel gained or lost some) are settled too: they belong to this pair, and must
        not link it to other kernels in step 3."""
        self.partner_a[ka], self.partner_b[kb] = kb, ka
        ops_a, ops_b = self.a.ops, self.b.ops
        free_a = list(self.kernel_ops_a[ka])
        free_b = list(self.kernel_ops_b[kb])
        first = _SETTLE_KEYS[0]
        keys_a = [first(ops_a[i]) for i in free_a]
        keys_b = [first(ops_b[j]) for j in free_b]
        if keys_a == keys_b:
            # The same ops in the same order (a kernel that did not change): the queues below
            # would pair them one by one in this order.
            for i, j in zip(free_a, free_b):
                self.pair_a[i], self.pair_b[j] = j, i
            return
        for key in _SETTLE_KEYS:
            waiting: dict[Hashable, deque[int]] = {}
            if key is first:
                for j, k in zip(free_b, keys_b):
                    waiting.setdefault(k, deque()).append(j)
                wanted: Iterable[Hashable] = keys_a
            else:
                for j in free_b:
                    waiting.setdefault(key(ops_b[j]), deque()).append(j)
                wanted = [key(ops_a[i]) for i in free_a]
            rest = []
            for i, k in zip(free_a, wanted):
                queue = waiting.get(k)
                if queue:
                    j = queue.popleft()
                    self.pair_a[i], self.pair_b[j] = j, i
                else:
                    rest.append(i)
            left = set(rest)
            taken = {self.pair_a[i] for i in free_a if i not in left}
            free_a, free_b = rest, [j for j in free_b if j not in taken]
        for i in free_a:
            self.pair_a[i] = _SETTLED
        for j in free_b:
            self.pair_b[j] = _SETTLED

    # -- step 2: ops ----------------------------------------------------------------------

    def _pair_ops(self) -> None:
        def exact(op: _Op) -> Hashable:
            return (op.name, op.opcode, op.shape, op.where)

        def full(op: _Op) -> Hashable:
            return (op.name, op.opcode, op.shape)

        def named(op: _Op) -> Hashable | None:
            return (op.name, op.opcode) if op.name else None

        def masked(op: _Op) -> Hashable | None:
            return (_DIGITS.sub("#", op.name), op.opcode, op.shape) if op.name else None

        def masked_loose(op: _Op) -> Hashable | None:
            return (_DIGITS.sub("#", op.name), op.opcode) if op.name else None

        def same_line(op: _Op) -> Hashable | None:
            return (op.name, op.opcode, op.where) if op.name and op.where else None

        self._pair_in_order(exact)
        self._pair_in_order(same_line)
        self._pair_by_subsequence(full)
        self._pair_by_subsequence(named)
        self._pair_in_order(full)
        self._pair_in_order(named)
        self._pair_in_order(masked)
        self._pair_in_order(masked_loose)

    def _remaining(self, side: DiffSide, paired: list[int]) -> list[int]:
        """Unpaired ops of a side in source order (file, line), then kernel and position."""
        ops = side.ops
        rest = [i for i, p in enumerate(paired) if p == _FREE]
        rest.sort(key=lambda i: (ops[i].file, ops[i].line, ops[i].kernel, ops[i].pos))
        return rest

    def _pair_in_order(self, key: Callable[[_Op], Hashable | None]) -> None:
        waiting: dict[Hashable, deque[int]] = {}
        for j in self._remaining(self.b, self.pair_b):
            k = key(self.b.ops[j])
            if k is not None:
                waiting.setdefault(k, deque()).append(j)
        if not waiting:
            return
        for i in self._remaining(self.a, self.pair_a):
            k = key(self.a.ops[i])
            queue = waiting.get(k) if k is not None else None
            if queue:
                j = queue.popleft()
                self.pair_a[i], self.pair_b[j] = j, i

    def _pair_by_subsequence(self, key: Callable[[_Op], Hashable | None]) -> None:
        """Pair the longest common subsequence of the two op sequences (in source order)."""
        rest_a = self._remaining(self.a, self.pair_a)
        rest_b = self._remaining(self.b, self.pair_b)
        if not rest_a or not rest_b:
            return
        # Intern keys as ints (fast to hash); an op without a key gets a value of its own.
        ids: dict[Hashable, int] = {}
        seq_a = [
            ids.setdefault(k, len(ids)) if (k := key(self.a.ops[i])) is not None else -1 - n
            for n, i in enumerate(rest_a)
        ]
        seq_b = [
            ids[k] if (k := key(self.b.ops[j])) is not None and k in ids else -1_000_000_000 - n
            for n, j in enumerate(rest_b)
        ]
        matcher = difflib.SequenceMatcher(None, seq_a, seq_b, autojunk=False)
        for block in matcher.get_matching_blocks():
            for n in range(block.size):
                i, j = rest_a[block.a + n], rest_b[block.b + n]
                self.pair_a[i], self.pair_b[j] = j, i

    # -- step 3: kernels linked by paired ops -------------------------------------------

    def _linked_groups(
        self, done_a: set[int], done_b: set[int]
    ) -> list[tuple[list[int], list[int]]]:
        a_ops, b_ops = self.a.ops, self.b.ops
        weight: dict[tuple[int, int], int] = {}
        for i, j in enumerate(self.pair_a):
            if j < 0:
                continue
            oa, ob = a_ops[i], b_ops[j]
            if oa.kernel in done_a:
                continue
            if oa.anchor or ob.anchor:
                edge = (oa.kernel, ob.kernel)
                weight[edge] = weight.get(edge, 0) + 1
        anchors_a = Counter(op.kernel for op in a_ops if op.anchor)
        anchors_b = Counter(op.kernel for op in b_ops if op.anchor)
        kept = {
            e
            for e, w in weight.items()
            if w >= _LINK_SHARE * anchors_a[e[0]] or w >= _LINK_SHARE * anchors_b[e[1]]
        }
        # A kernel whose links are all weak keeps its strongest: its ops did go somewhere.
        best_a: dict[int, tuple[int, int]] = {}
        best_b: dict[int, tuple[int, int]] = {}
        for e, w in weight.items():
            if w > best_a.get(e[0], (0, 0))[0]:
                best_a[e[0]] = (w, e[1])
            if w > best_b.get(e[1], (0, 0))[0]:
                best_b[e[1]] = (w, e[0])
        linked_a = {ka for ka, _ in kept}
        linked_b = {kb for _, kb in kept}
        for ka, (_, kb) in best_a.items():
            if ka not in linked_a:
                kept.add((ka, kb))
        for kb, (_, ka) in best_b.items():
            if kb not in linked_b:
                kept.add((ka, kb))

        # Connected components (union-find over ("a", k) / ("b", k) encoded as k / ~k).
        parent: dict[int, int] = {}

        def find(x: int) -> int:
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for ka, kb in sorted(kept):
            ra, rb = find(ka), find(~kb)
            if ra != rb:
                parent[rb] = ra
        members: dict[int, tuple[list[int], list[int]]] = {}
        for ka in range(len(self.a.kernels)):
            if ka not in done_a and ka in parent:
                members.setdefault(find(ka), ([], []))[0].append(ka)
        for kb in range(len(self.b.kernels)):
            if kb not in done_b and ~kb in parent:
                members.setdefault(find(~kb), ([], []))[1].append(kb)
        groups = list(members.values())

        # Step 4: kernels with no link at all, paired by the multiset of their ops.
        lone_a = [ka for ka in range(len(self.a.kernels)) if ka not in done_a and ka not in parent]
        lone_b = [kb for kb in range(len(self.b.kernels)) if kb not in done_b and ~kb not in parent]
        groups += self._pair_lone_kernels(lone_a, lone_b)
        return groups

    def _pair_lone_kernels(
        self, lone_a: list[int], lone_b: list[int]
    ) -> list[tuple[list[int], list[int]]]:
        """Kernels with no link at all: paired by the multiset of their ops (opcodes and shapes,
        then opcodes alone with the same op names), best match first; the rest are added or
        removed."""
        groups: list[tuple[list[int], list[int]]] = []
        for key in (_by_shapes, _by_opcodes):
            keys_a: list[Hashable | None] = [None] * len(self.a.kernels)
            keys_b: list[Hashable | None] = [None] * len(self.b.kernels)
            for ka in lone_a:
                keys_a[ka] = key(self.a, self.kernel_ops_a, ka)
            for kb in lone_b:
                keys_b[kb] = key(self.b, self.kernel_ops_b, kb)
            groups += self._pair_kernels_by(keys_a, keys_b)
        groups += [([ka], []) for ka in lone_a if ka not in self.partner_a]
        groups += [([], [kb]) for kb in lone_b if kb not in self.partner_b]
        return groups

    # -- building the changes ----------------------------------------------------------------

    def _first_index(self, change: KernelChange) -> tuple[int, int]:
        return (
            self.index_a[id(change.a[0])] if change.a else len(self.a.kernels),
            self.index_b[id(change.b[0])] if change.b else len(self.b.kernels),
        )

    def _change(self, ka_list: list[int], kb_list: list[int]) -> KernelChange:
        ka_list, kb_list = sorted(ka_list), sorted(kb_list)
        a_kernels = [self.a.kernels[k] for k in ka_list]
        b_kernels = [self.b.kernels[k] for k in kb_list]
        ops_a = Counter(self.a.ops[i].opcode for k in ka_list for i in self.kernel_ops_a[k])
        ops_b = Counter(self.b.ops[j].opcode for k in kb_list for j in self.kernel_ops_b[k])
        shape_changes = self._shape_changes(ka_list, kb_list)
        status: ChangeStatus
        if not a_kernels:
            status = ChangeStatus.ADDED
        elif not b_kernels:
            status = ChangeStatus.REMOVED
        elif len(a_kernels) == 1 and len(b_kernels) == 1:
            same_structure = _structure(a_kernels[0]) == _structure(b_kernels[0])
            same = ops_a == ops_b and not shape_changes and same_structure
            status = ChangeStatus.UNCHANGED if same else ChangeStatus.CHANGED
        elif len(a_kernels) == 1:
            status = ChangeStatus.SPLIT
        elif len(b_kernels) == 1:
            status = ChangeStatus.MERGED
        else:
            status = ChangeStatus.REGROUPED
        through: list[MemoryEdge] = []
        if status in (ChangeStatus.SPLIT, ChangeStatus.REGROUPED):
            # The arrays between B's kernels, now written to memory and read back.
            through = _memory_edges(self.b, kb_list)
        elif status is ChangeStatus.MERGED:
            # The arrays between A's kernels that no longer leave the kernel.
            through = _memory_edges(self.a, ka_list)
        return KernelChange(
            status,
            a_kernels,
            b_kernels,
            ops_added=dict(sorted((ops_b - ops_a).items())),
            ops_removed=dict(sorted((ops_a - ops_b).items())),
            shape_changes=shape_changes,
            through_memory=through,
        )

    def _shape_changes(self, ka_list: list[int], kb_list: list[int]) -> list[tuple[str, str, int]]:
        kb_set = set(kb_list)
        changes: Counter[tuple[str, str]] = Counter()
        for k in ka_list:
            for i in self.kernel_ops_a[k]:
                j = self.pair_a[i]
                if j >= 0 and self.b.ops[j].kernel in kb_set:
                    sa, sb = self.a.ops[i].shape, self.b.ops[j].shape
                    if sa != sb:
                        changes[(sa, sb)] += 1
        if not changes and len(ka_list) == 1 and len(kb_list) == 1:
            # Without op shapes (a side built from a report) the kernel's own shape still tells.
            sa, sb = (
                _LAYOUT.sub("", self.a.kernels[ka_list[0]].shape),
                _LAYOUT.sub("", self.b.kernels[kb_list[0]].shape),
            )
            if sa != sb and not self.a.ops[self.kernel_ops_a[ka_list[0]][0]].shape:
                changes[(sa, sb)] += 1
        return [
            (sa, sb, n) for (sa, sb), n in sorted(changes.items(), key=lambda kv: (-kv[1], kv[0]))
        ]

    # -- source lines ---------------------------------------------------------------------

    def _line_changes(self, changes: list[KernelChange]) -> list[LineChange]:
        a_ops, b_ops = self.a.ops, self.b.ops
        lines_a = _lines(self.a)
        lines_b = _lines(self.b)
        # Map each line of A to the line of B most of its paired ops went to.
        moves = Counter(
            (a_ops[i].where, b_ops[j].where)
            for i, j in enumerate(self.pair_a)
            if j >= 0 and a_ops[i].where and b_ops[j].where
        )
        votes: dict[str, dict[str, int]] = {}
        for (la, lb), n in moves.items():  # first seen first, as the votes were cast
            votes.setdefault(la, {})[lb] = n
        # A line that still exists in B keeps its place if any of its ops are still there.
        to_b = {
            la: la if la in c else max(c.items(), key=lambda kv: kv[1])[0]
            for la, c in votes.items()
        }
        reached = set(to_b.values())
        unchanged_a = {k.name for c in changes if c.status is ChangeStatus.UNCHANGED for k in c.a}
        table_a, table_b = _kernel_lines(self.a), _kernel_lines(self.b)

        out: list[LineChange] = []
        for la, (n_a, kernels_a) in lines_a.items():
            lb = to_b.get(la)
            names_a = [self.a.kernels[k].name for k in kernels_a]
            if lb is None:
                if not all(n in unchanged_a for n in names_a):
                    out.append(LineChange(la, "", n_a, 0, names_a, [], LineStatus.REMOVED))
                continue
            n_b, kernels_b = lines_b[lb]
            names_b = [self.b.kernels[k].name for k in kernels_b]
            before = {to_b[x] for x in _companions(table_a, la, kernels_a) if x in to_b} - {lb}
            after = set(_companions(table_b, lb, kernels_b))
            separated, joined = sorted(before - after), sorted(after - before)
            if len(kernels_b) > len(kernels_a):
                status = LineStatus.MORE_KERNELS
            elif len(kernels_b) < len(kernels_a):
                status = LineStatus.FEWER_KERNELS
            elif separated and joined:
                status = LineStatus.REGROUPED
            elif separated:
                status = LineStatus.SEPARATED
            elif joined:
                status = LineStatus.JOINED
            else:
                continue
            out.append(LineChange(la, lb, n_a, n_b, names_a, names_b, status, separated, joined))
        for lb, (n_b, kernels_b) in lines_b.items():
            if lb not in reached:
                names_b = [self.b.kernels[k].name for k in kernels_b]
                out.append(LineChange("", lb, 0, n_b, [], names_b, LineStatus.ADDED))
        out.sort(key=lambda r: _line_sort_key(r.source_b or r.source_a))
        return out


def _ops_by_kernel(side: DiffSide) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in side.kernels]
    for i, op in enumerate(side.ops):
        out[op.kernel].append(i)
    return out


def _kernel_graph(side: DiffSide) -> tuple[list[list[Hashable]], list[list[Hashable]]]:
    """Per kernel, what feeds it and what it feeds: kernel indices, or a token for anything
    else (``parameter 0``, ``constant``, ``out`` for a result no kernel reads). Values are
    followed through bitcasts, tuples and get-tuple-elements, which move no data."""
    index = {id(inst): k for k, inst in enumerate(side.instructions) if inst is not None}
    producers: list[list[Hashable]] = [[] for _ in side.kernels]
    consumers: list[list[Hashable]] = [[] for _ in side.kernels]
    for k, inst in enumerate(side.instructions):
        if inst is None:
            continue
        for operand in inst.operands:
            source = _data_source(operand)
            found = index.get(id(source))
            if found is not None:
                producers[k].append(found)
                consumers[found].append(k)
            elif source.opcode == "parameter":
                producers[k].append(f"parameter {source.parameter_number}")
            else:
                producers[k].append(source.opcode)
    for k, inst in enumerate(side.instructions):
        if inst is not None and not consumers[k]:
            consumers[k].append("out")
    return producers, consumers


def _structure(k: Kernel) -> Hashable:
    c = k.cost
    return (
        k.opcode,
        k.kind,
        k.backend_kind,
        _LAYOUT.sub("", k.shape),
        c.bytes_accessed,
        c.flops,
        c.transcendentals,
    )


def _memory_edges(side: DiffSide, kernels: list[int]) -> list[MemoryEdge]:
    """Arrays that one of ``kernels`` writes and another of them reads."""
    from ..hlo.shape import parse_shape

    insts = [side.instructions[k] for k in kernels]
    names = {inst.name for inst in insts if inst is not None}
    seen: set[tuple[str, str]] = set()
    out: list[MemoryEdge] = []
    for inst in insts:
        if inst is None:
            continue
        for operand in inst.operands:
            source = _data_source(operand)
            if source.name not in names or source is inst or (source.name, inst.name) in seen:
                continue
            seen.add((source.name, inst.name))
            text = _LAYOUT.sub("", operand.shape_text)
            try:
                size = parse_shape(operand.shape_text).byte_size
            except Exception:  # noqa: BLE001 - an odd shape still names the edge
                size = 0
            out.append(MemoryEdge(source.name, inst.name, text, size))
    return out


def _lines(side: DiffSide) -> dict[str, tuple[int, list[int]]]:
    """For each source line, its op count and the kernels its ops are in (in kernel order)."""
    ops_per: dict[str, int] = {}
    kernels: dict[str, dict[int, None]] = {}
    for op in side.ops:
        if op.where:
            ops_per[op.where] = ops_per.get(op.where, 0) + 1
            kernels.setdefault(op.where, {})[op.kernel] = None
    ordered = sorted(ops_per, key=_line_sort_key)
    return {w: (ops_per[w], sorted(kernels[w])) for w in ordered}


def _kernel_lines(side: DiffSide) -> dict[int, list[str]]:
    """For each kernel, the source lines of its ops (first seen first)."""
    table: dict[int, dict[str, None]] = {}
    for op in side.ops:
        if op.where:
            table.setdefault(op.kernel, {})[op.where] = None
    return {k: list(v) for k, v in table.items()}


def _companions(table: dict[int, list[str]], where: str, kernels: list[int]) -> list[str]:
    """Other source lines with ops in the same kernels as ``where``'s."""
    found: dict[str, None] = {}
    for k in kernels:
        for w in table.get(k, ()):
            if w != where:
                found[w] = None
    return list(found)


def _line_sort_key(where: str) -> tuple[str, int, str]:
    m = _WHERE.match(where)
    return (m.group("file"), int(m.group("line")), where) if m else (where, 0, where)

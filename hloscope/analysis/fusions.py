"""The fusion report: what kernels XLA made of a program, what each costs, where it came from.

After optimization, an HLO module is a list of *kernels*: each ``fusion`` instruction is one
kernel (its fused computation is generated as one loop nest or library call), and so is each
instruction left outside any fusion that does real work (a ``dot``, a ``copy``, a ``sort``, a
``custom-call``...). Instructions that only name or alias buffers (``parameter``,
``constant``, ``bitcast``, ``tuple``, ``get-tuple-element``...) are not kernels, and neither
are ``while``/``conditional``/``call``: their bodies' instructions are kernels of those bodies,
and each row says which computation it runs in.

:func:`fusion_report` builds one :class:`Kernel` per kernel with

* ``kind``: the fusion kind (``kLoop``, ``kInput``, ``kOutput``, ``kCustom``) or ``unfused``,
  and ``backend_kind``: the kind in the backend config (``__ynn_fusion`` on CPU,
  ``__triton_gemm`` on GPU) or, for a custom-call, its target;
* the fused ops: every instruction of the fused computation but its parameters, counted by
  category (see :mod:`hloscope.hlo.opcodes`), and a ``signature`` of them: each opcode once,
  most frequent first, ties in the order they first appear (topological order), skipping ops
  that only rename buffers (``bitcast``, ``constant``, ``tuple``, ``get-tuple-element``).
  ``dot+add+tanh`` is a dot with its bias and activation fused (renderers shorten long ones);
* the cost at the kernel boundary from :mod:`hloscope.analysis.cost` (XLA's rules): bytes read
  and written, FLOPs, transcendentals and arithmetic intensity (FLOPs per byte);
* the source lines its ops came from (``file:line (function)``, the innermost frame outside
  site-packages), most frequent first. (TensorFlow records only its own ``ops.py`` line; its
  ``op_name``, also a column, names the layer.)

A kernel inside a ``while`` body is costed for one iteration, as XLA does;
:attr:`~hloscope.analysis.cost.ModuleCost.executed` scales loops by their known trip counts.

The summary counts kernels, fusions by kind and ops left unfused. An elementwise op on arrays
left unfused is worth a look (``unfused_elementwise``): it reads its inputs from memory and
writes its result back, a round trip that fusing it into its producer or consumer would avoid.
The summary's byte total is the sum over kernels; :func:`~hloscope.analysis.cost.module_cost`
(``xla_bytes_accessed``) also counts the 8-byte pointer tables of ``tuple`` instructions.
:func:`by_source` turns the report around: for each source line, the kernels its ops ended up
in.

This module computes; it does not word or print. Filtering, sorting, CSV and the summary's
notes live in :mod:`hloscope.render.rows`, tables in :mod:`hloscope.render.fusion_table`.
Everything here takes parsed :class:`~hloscope.hlo.model.Module` objects: to report on a file,
a dump folder or a script, resolve the TARGET first (``hloscope.fusions("model.txt")`` does).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..hlo.model import Module
from ..hlo.opcodes import FREE_OPCODES, category_of
from .cost import ZERO, Cost, instruction_costs, kernel_computations, module_cost

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from ..hlo.model import Computation, Instruction, StackFrame

__all__ = [
    "Kernel",
    "FusionSummary",
    "FusionReport",
    "fusion_report",
    "fusions",
    "by_source",
    "source_rows",
    "op_source",
    "report_modules",
    "COLUMNS",
    "SOURCE_COLUMNS",
    "NOT_KERNELS",
    "UNFUSED",
    "UNKNOWN_SOURCE",
]

# Not kernels: ops that only name buffers, and control flow (their bodies hold the kernels).
NOT_KERNELS: frozenset[str] = FREE_OPCODES | frozenset(
    {"while", "conditional", "call", "async-start", "async-update", "async-done"}
)
# Left out of a signature: they rename or feed data without computing.
_SIGNATURE_SKIP = frozenset({"parameter", "constant", "bitcast", "tuple", "get-tuple-element"})
UNFUSED = "unfused"
UNKNOWN_SOURCE = "<unknown>"

# Columns of a report row, in display order (also the names --sort and --filter accept).
COLUMNS: tuple[str, ...] = (
    "module",
    "computation",
    "name",
    "opcode",
    "kind",
    "backend_kind",
    "root",
    "shape",
    "n_ops",
    "signature",
    "bytes_in",
    "bytes_out",
    "bytes",
    "flops",
    "transcendentals",
    "intensity",
    "source",
    "op_name",
    "flag",
    "ops",
    "op_counts",
    "sources",
    "line",
)
# Columns of a source-view row.
SOURCE_COLUMNS: tuple[str, ...] = (
    "source",
    "ops",
    "n_kernels",
    "kernels",
    "flops",
    "transcendentals",
)


# ------------------------------------------------------------------------------------------
# Results
# ------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Kernel:
    """One kernel of an optimized module: a fusion or an op that runs on its own."""

    name: str
    computation: str
    opcode: str
    kind: str
    backend_kind: str
    root: str
    ops: list[str]
    op_counts: dict[str, int]
    signature: str
    cost: Cost
    sources: list[tuple[str, int]]  # ("file:line (function)", number of ops), most first
    op_name: str
    line: int
    shape: str = ""
    module: str = ""
    rank: int = 0

    @property
    def is_fusion(self) -> bool:
        return self.opcode == "fusion"

    @property
    def source(self) -> str:
        return self.sources[0][0] if self.sources else ""

    def row(self) -> dict[str, Any]:
        """The kernel as a flat dict with the :data:`COLUMNS` keys."""
        c = self.cost
        return {
            "module": self.module,
            "computation": self.computation,
            "name": self.name,
            "opcode": self.opcode,
            "kind": self.kind,
            "backend_kind": self.backend_kind,
            "root": self.root,
            "shape": self.shape,
            "n_ops": len(self.ops),
            "signature": self.signature,
            "bytes_in": c.bytes_read,
            "bytes_out": c.bytes_written,
            "bytes": c.bytes_accessed,
            "flops": c.flops,
            "transcendentals": c.transcendentals,
            "intensity": c.arithmetic_intensity,
            "source": self.source,
            "op_name": self.op_name,
            "flag": c.flag,
            "ops": list(self.ops),
            "op_counts": dict(self.op_counts),
            "sources": [s for s, _ in self.sources],
            "line": self.line,
        }


@dataclass(slots=True)
class FusionSummary:
    """Counts over a report's kernels."""

    modules: list[str]
    kernel_count: int
    fusion_count: int
    unfused_count: int
    fusions_by_kind: dict[str, int]
    unfused_by_opcode: dict[str, int]
    unfused_elementwise: list[str]
    unfused_elementwise_bytes: int
    bytes: int
    bytes_in: int
    bytes_out: int
    flops: int
    transcendentals: int
    xla_bytes_accessed: int
    xla_flops: int
    xla_transcendentals: int
    flagged: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}  # type: ignore[attr-defined]


@dataclass(slots=True)
class FusionReport:
    """The kernels of one or more modules and their summary."""

    kernels: list[Kernel]
    summary: FusionSummary
    # Per-op attribution for by_source(): (source, kernel name, computation, module, cost).
    op_sources: list[tuple[str, str, str, str, Cost]] = field(default_factory=list, repr=False)

    def rows(self) -> list[dict[str, Any]]:
        return [k.row() for k in self.kernels]

    def to_frame(self) -> pandas.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.rows(), columns=list(COLUMNS))

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows(), "summary": self.summary.to_dict()}


# ------------------------------------------------------------------------------------------
# Building the report
# ------------------------------------------------------------------------------------------

_SITE_PACKAGES = ("site-packages/", "dist-packages/")


def op_source(inst: Instruction) -> str:
    """Where ``inst`` came from as ``file:line (function)``: the innermost frame of its stack
    outside installed packages (the user's line, not jax's), or ``""`` when it has none."""
    return _frame_text(inst.stack)


def _frame_text(stack: Sequence[StackFrame]) -> str:
    """``file:line (function)`` of the innermost frame outside installed packages."""
    if not stack:
        return ""
    for frame in stack:
        if not any(p in frame.file for p in _SITE_PACKAGES):
            return str(frame)
    return str(stack[0])


class _Sources:
    """:func:`op_source` for the ops of one module, remembered per stack frame id.

    A model's thousands of ops share a few hundred frames; resolving one means walking its
    parents and testing each file, so each frame id is worded once.
    """

    __slots__ = ("_module", "_by_frame")

    def __init__(self, module: Module) -> None:
        self._module = module
        self._by_frame: dict[int, str] = {}

    def __call__(self, inst: Instruction) -> str:
        md = inst.metadata
        frame_id = md.stack_frame_id
        if frame_id:
            where = self._by_frame.get(frame_id)
            if where is None:
                where = self._by_frame[frame_id] = _frame_text(self._module.stack_frames(frame_id))
            if where:
                return where
        # No frame table entry: the single location of the metadata (what Instruction.stack
        # falls back to).
        return f"{md.source_file}:{md.source_line}" if md.source_file else ""


def _backend_kind(inst: Instruction) -> str:
    """``fusion_config.kind`` from a fusion's backend config; a custom-call's target."""
    attrs = inst.attrs
    if inst.opcode == "custom-call":
        return attrs.get("custom_call_target", "")
    config = attrs.get("backend_config")
    if not isinstance(config, dict):  # absent, or not JSON
        return ""
    # GPU: {"fusion_backend_config":{"kind":"__triton_gemm",...}}; CPU: {"fusion_config":{...}}.
    fusion = config.get("fusion_backend_config")
    if fusion is None:
        fusion = config.get("fusion_config")
    kind = fusion.get("kind", "") if isinstance(fusion, dict) else ""
    return kind if isinstance(kind, str) else ""


def _signature(ops: Sequence[str], root: str) -> str:
    counts: Counter[str] = Counter(op for op in ops if op not in _SIGNATURE_SKIP)
    if not counts:
        return root
    # Counter keeps first-seen order, so equal counts stay in topological order.
    ordered = [op for op, _ in sorted(counts.items(), key=lambda kv: -kv[1])]
    # All of them: shortening for a narrow column or a sentence is the renderer's business.
    return "+".join(ordered)


def _kernel(
    inst: Instruction,
    comp: Computation,
    module_name: str,
    source_of: _Sources,
    cost_of: Callable[[Instruction], Cost],
    op_sources: list[tuple[str, str, str, str, Cost]],
) -> Kernel:
    # Metadata first: the model reads it fastest before anything (here: finding the fused
    # computation, the cost) has decoded the instruction's other attributes.
    own_name = inst.metadata.op_name
    if inst.opcode == "fusion":
        fused = inst.fused_computation
        members = [i for i in fused.instructions if i.opcode != "parameter"] if fused else []
        root_inst = fused.root if fused is not None else None
        root = root_inst.opcode if root_inst is not None else ""
        kind = inst.fusion_kind or ""
    else:
        root_inst = None
        members = [inst]
        root = inst.opcode
        kind = UNFUSED
    wheres = [source_of(m) for m in members]
    # The kernel's op_name: its own (XLA gives a fusion its root's), else its root's.
    op_name = own_name
    if not op_name and root_inst is not None:
        op_name = root_inst.metadata.op_name
    ops = [m.opcode for m in members]
    op_counts: Counter[str] = Counter(category_of(op) for op in ops)
    sources: Counter[str] = Counter(w for w in wheres if w)
    for m, where in zip(members, wheres):
        op_sources.append((where or UNKNOWN_SOURCE, inst.name, comp.name, module_name, cost_of(m)))
    return Kernel(
        name=inst.name,
        computation=comp.name,
        opcode=inst.opcode,
        kind=kind,
        backend_kind=_backend_kind(inst),
        root=root,
        ops=ops,
        op_counts=dict(op_counts),
        signature=_signature(ops, root),
        cost=cost_of(inst),
        sources=sorted(sources.items(), key=lambda kv: -kv[1]),
        op_name=op_name,
        line=inst.line,
        shape=inst.shape_text or str(inst.shape),  # XLA text may leave the shape out
        module=module_name,
        rank=inst.shape.rank,
    )


def _kernels_of(module: Module, op_sources: list) -> list[Kernel]:
    out: list[Kernel] = []
    source_of = _Sources(module)
    cost_of = instruction_costs(module)
    for comp in kernel_computations(module):
        for inst in comp.instructions:
            if inst.opcode in NOT_KERNELS:
                continue
            out.append(_kernel(inst, comp, module.name, source_of, cost_of, op_sources))
    return out


def report_modules(value: Any, what: str = "fusion_report") -> list[Module]:
    """``value`` as a list of modules: one :class:`Module` or an iterable of them.

    Analyses read parsed modules only; a path or TARGET string is refused with a
    :class:`TypeError` that says how to get modules from it (resolving a TARGET may run a
    script, which is the caller's decision, not an analysis's).
    """
    if isinstance(value, Module):
        return [value]
    if isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(
            f"{what}() takes parsed HLO modules, not a path ({os.fsdecode(value)!r}): "
            "use hloscope.parse(PATH) or hloscope.load_modules(TARGET) first, or the "
            "top-level hloscope.fusions(TARGET) / hloscope.diff(A, B) that resolve TARGETs"
        )
    if isinstance(value, Iterable):
        modules = list(value)
        if all(isinstance(m, Module) for m in modules):
            return modules
    kind = type(value).__name__
    raise TypeError(f"{what}() takes a Module or an iterable of Modules, not a {kind}")


def fusion_report(module: Module | Iterable[Module]) -> FusionReport:
    """The kernels of ``module`` (or of several modules, one after another) with a summary.

    ``module`` is a parsed :class:`~hloscope.hlo.model.Module` or an iterable of them (the
    modules of a dump folder, say); paths are refused with a :class:`TypeError`.
    """
    modules = report_modules(module)
    kernels: list[Kernel] = []
    op_sources: list[tuple[str, str, str, str, Cost]] = []
    xla = ZERO
    flagged: list[str] = []
    for m in modules:
        kernels.extend(_kernels_of(m, op_sources))
        mc = module_cost(m)
        xla = xla + mc.total
        flagged.extend(f"{m.name}/{f.computation}/{f.name}: {f.reason}" for f in mc.flagged)
    summary = _summarize([m.name for m in modules], kernels, xla, flagged)
    return FusionReport(kernels, summary, op_sources)


def _summarize(
    names: list[str], kernels: list[Kernel], xla: Cost, flagged: list[str]
) -> FusionSummary:
    by_kind: Counter[str] = Counter()
    unfused: Counter[str] = Counter()
    elementwise: list[str] = []
    elementwise_bytes = 0
    total = ZERO
    for k in kernels:
        total = total + k.cost
        if k.is_fusion:
            by_kind[f"{k.kind}/{k.backend_kind}" if k.backend_kind else k.kind] += 1
        else:
            unfused[k.opcode] += 1
            # Scalar bookkeeping (a loop counter's add) is not worth a note.
            if category_of(k.opcode) == "elementwise" and k.rank > 0:
                elementwise.append(k.name)
                elementwise_bytes += k.cost.bytes_accessed
    fusion_count = sum(by_kind.values())
    return FusionSummary(
        modules=names,
        kernel_count=len(kernels),
        fusion_count=fusion_count,
        unfused_count=len(kernels) - fusion_count,
        fusions_by_kind=dict(by_kind.most_common()),
        unfused_by_opcode=dict(unfused.most_common()),
        unfused_elementwise=elementwise,
        unfused_elementwise_bytes=elementwise_bytes,
        bytes=total.bytes_accessed,
        bytes_in=total.bytes_read,
        bytes_out=total.bytes_written,
        flops=total.flops,
        transcendentals=total.transcendentals,
        xla_bytes_accessed=xla.bytes_accessed,
        xla_flops=xla.flops,
        xla_transcendentals=xla.transcendentals,
        flagged=flagged,
    )


def fusions(module: Module | Iterable[Module]) -> pandas.DataFrame:
    """A DataFrame with one row per kernel of ``module`` (or of several modules).

    Columns are :data:`COLUMNS`; the summary (:meth:`FusionSummary.to_dict`) is on
    ``df.attrs["summary"]``. Takes parsed modules, as :func:`fusion_report` does.
    """
    report = fusion_report(report_modules(module, "fusions"))
    frame = report.to_frame()
    frame.attrs["summary"] = report.summary.to_dict()
    return frame


# ------------------------------------------------------------------------------------------
# Source view
# ------------------------------------------------------------------------------------------


def source_rows(report: FusionReport) -> list[dict[str, Any]]:
    """For each source line, the kernels its ops ended in (see :func:`by_source`)."""
    table: dict[str, dict[str, Any]] = {}
    for where, kernel, comp, module, cost in report.op_sources:
        row = table.get(where)
        if row is None:
            row = table[where] = {
                "source": where,
                "ops": 0,
                "kernels": [],
                "flops": 0,
                "transcendentals": 0,
                "_seen": set(),
            }
        row["ops"] += 1
        row["flops"] += cost.flops
        row["transcendentals"] += cost.transcendentals
        key = (module, comp, kernel)
        if key not in row["_seen"]:
            row["_seen"].add(key)
            row["kernels"].append(kernel)
    rows = []
    for row in table.values():
        del row["_seen"]
        row["n_kernels"] = len(row["kernels"])
        rows.append(row)
    # Most ops first; the unknown bucket last.
    rows.sort(key=lambda r: (r["source"] == UNKNOWN_SOURCE, -r["ops"]))
    return [{k: r[k] for k in SOURCE_COLUMNS} for r in rows]


def by_source(report: FusionReport) -> pandas.DataFrame:
    """One row per source line: how many ops came from it, the kernels they ended in, and the
    FLOPs of those ops (an op's own FLOPs; they sum to the kernels' FLOPs)."""
    import pandas as pd

    return pd.DataFrame(source_rows(report), columns=list(SOURCE_COLUMNS))

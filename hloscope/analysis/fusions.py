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
  category (see :mod:`hloscope.hlo.opcodes`), and a short ``signature`` of them: the opcodes
  most frequent first, ties in the order they first appear (topological order), skipping ops
  that only rename buffers (``bitcast``, ``constant``, ``tuple``, ``get-tuple-element``), at
  most four then ``+…``. ``dot+add+tanh`` is a dot with its bias and activation fused;
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
(``xla_bytes_accessed``) also counts the 8-byte pointer tables of ``tuple`` instructions. :func:`by_source` turns the
report around: for each source line, the kernels its ops ended up in.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from ..errors import HloscopeError
from ..hlo.escapes import c_unescape
from ..hlo.opcodes import FREE_OPCODES, category_of
from ..units import format_bytes
from .cost import ZERO, Cost, instruction_cost, kernel_computations, module_cost

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from ..hlo.model import Computation, Instruction, Module, StackFrame

__all__ = [
    "Kernel",
    "FusionSummary",
    "FusionReport",
    "fusion_report",
    "fusions",
    "by_source",
    "source_rows",
    "filter_rows",
    "sort_rows",
    "COLUMNS",
    "SOURCE_COLUMNS",
    "load_target",
    "rows_to_csv",
    "parse_filter",
    "ReportOptionError",
]

# Not kernels: ops that only name buffers, and control flow (their bodies hold the kernels).
NOT_KERNELS: frozenset[str] = FREE_OPCODES | frozenset(
    {"while", "conditional", "call", "async-start", "async-update", "async-done"}
)
# Left out of a signature: they rename or feed data without computing.
_SIGNATURE_SKIP = frozenset({"parameter", "constant", "bitcast", "tuple", "get-tuple-element"})
_SIGNATURE_MAX = 4
UNFUSED = "unfused"
UNKNOWN_SOURCE = "<unknown>"

# Columns of a report row, in display order (also the names --sort and --filter accept).
COLUMNS: tuple[str, ...] = (
    "module", "computation", "name", "opcode", "kind", "backend_kind", "root", "shape", "n_ops",
    "signature", "bytes_in", "bytes_out", "bytes", "flops", "transcendentals", "intensity",
    "source", "op_name", "flag", "ops", "op_counts", "sources", "line",
)  # fmt: skip
# Columns of a source-view row.
SOURCE_COLUMNS: tuple[str, ...] = ("source", "ops", "n_kernels", "kernels", "flops", "transcendentals")


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
    notes: list[str] = field(default_factory=list)

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

    def to_frame(self) -> "pandas.DataFrame":
        import pandas as pd

        return pd.DataFrame(self.rows(), columns=list(COLUMNS))

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows(), "summary": self.summary.to_dict()}


# ------------------------------------------------------------------------------------------
# Building the report
# ------------------------------------------------------------------------------------------

_SITE_PACKAGES = ("site-packages/", "dist-packages/")

# The report reads a few metadata fields of every op. Decoding each op's whole attribute list
# through ``Instruction.metadata`` costs ~100 us an op (0.8 s on a 12k-op module); this reads
# the fields straight out of the attribute text with str.find, ~2 us an op. The block regex
# is the "unrolled loop" form, so quoted strings (which may hold '}') cost no backtracking.
_MD_BODY_RE = re.compile(r'([^}"]*(?:"[^"\\]*(?:\\.[^"\\]*)*"[^}"]*)*)\}')
_DIGITS_RE = re.compile(r"\d+")


@dataclass(frozen=True, slots=True)
class _OpInfo:
    op_name: str
    where: str  # "file:line (function)", "" when unknown


_NO_INFO = _OpInfo("", "")


def _md_string(block: str, key: str) -> str:
    """The value of ``key="..."`` in a metadata block ("" if absent)."""
    at = block.find(key + '="')
    while at > 0 and block[at - 1] != " ":  # "op_name=" inside "deduplicated_op_name="...
        at = block.find(key + '="', at + 1)
    if at < 0:
        return ""
    start = at + len(key) + 2
    end = block.find('"', start)
    while end > 0 and block[end - 1] == "\\":  # an escaped quote: keep looking
        end = block.find('"', end + 1)
    value = block[start:end] if end > 0 else block[start:]
    if "\\" in value:
        try:
            value = c_unescape(value)
        except ValueError:  # a bad escape: show the text as written
            pass
    return value


def _md_int(block: str, key: str) -> int:
    at = block.find(key + "=")
    while at > 0 and block[at - 1] != " ":
        at = block.find(key + "=", at + 1)
    if at < 0:
        return 0
    m = _DIGITS_RE.match(block, at + len(key) + 1)
    return int(m.group()) if m else 0


def _op_info(inst: "Instruction") -> _OpInfo:
    """``op_name`` and the source location of an op, read from its metadata text."""
    text = inst.attr_text
    pos = text.find("metadata={")
    while pos > 0 and text[pos - 1] not in ", ":  # only the attribute, not a lookalike
        pos = text.find("metadata={", pos + 1)
    if pos < 0:
        return _NO_INFO
    m = _MD_BODY_RE.match(text, pos + 10)
    if m is None:
        return _NO_INFO
    block = " " + m.group(1)  # a leading space lets every key check its left neighbour
    where = ""
    frame_id = _md_int(block, "stack_frame_id") if "stack_frame_id=" in block else 0
    if frame_id:
        comp = inst.computation
        module = comp.module if comp is not None else None
        if module is not None:
            where = _frame_text(module.stack_frames(frame_id))
    if not where and "source_file=" in block:
        where = f"{_md_string(block, 'source_file')}:{_md_int(block, 'source_line')}"
    op_name = _md_string(block, "op_name") if "op_name=" in block else ""
    return _OpInfo(op_name, where)


def _frame_text(stack: "Sequence[StackFrame]") -> str:
    """``file:line (function)`` of the innermost frame outside installed packages."""
    if not stack:
        return ""
    for frame in stack:
        if not any(p in frame.file for p in _SITE_PACKAGES):
            return str(frame)
    return str(stack[0])


_BACKEND_KIND_RE = re.compile(r'"kind"\s*:\s*"([^"]*)"')


def _backend_kind(inst: "Instruction") -> str:
    """``fusion_config.kind`` from a fusion's backend config; a custom-call's target."""
    attrs = inst.attrs
    if inst.opcode == "custom-call":
        if "custom_call_target" in attrs:
            return str(attrs.raw("custom_call_target")).strip('"')
        return ""
    if "backend_config" not in attrs:
        return ""
    raw = attrs.raw("backend_config")
    # GPU: {"fusion_backend_config":{"kind":"__triton_gemm",...}}; CPU: {"fusion_config":{...}}.
    at = raw.find('"fusion_backend_config"')
    if at < 0:
        at = raw.find('"fusion_config"')
    if at < 0:
        return ""
    m = _BACKEND_KIND_RE.search(raw, at)
    return m.group(1) if m else ""


def _signature(ops: Sequence[str], root: str) -> str:
    counts: Counter[str] = Counter(op for op in ops if op not in _SIGNATURE_SKIP)
    if not counts:
        return root
    # Counter keeps first-seen order, so equal counts stay in topological order.
    ordered = [op for op, _ in sorted(counts.items(), key=lambda kv: -kv[1])]
    text = "+".join(ordered[:_SIGNATURE_MAX])
    return text + "+…" if len(ordered) > _SIGNATURE_MAX else text


def _kernel(
    inst: "Instruction", comp: "Computation", module_name: str,
    op_sources: list[tuple[str, str, str, str, Cost]],
) -> Kernel:  # fmt: skip
    cost = instruction_cost(inst)
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
    ops = [m.opcode for m in members]
    op_counts: Counter[str] = Counter(category_of(op) for op in ops)
    sources: Counter[str] = Counter()
    info = _NO_INFO
    for m in members:
        info = _op_info(m)
        if info.where:
            sources[info.where] += 1
        op_sources.append(
            (info.where or UNKNOWN_SOURCE, inst.name, comp.name, module_name,
             instruction_cost(m))
        )  # fmt: skip
    # The kernel's op_name: its own (a fusion gets its root's from XLA), else its root's.
    op_name = info.op_name if kind == UNFUSED else _op_info(inst).op_name
    if not op_name and root_inst is not None:
        op_name = _op_info(root_inst).op_name
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
        cost=cost,
        sources=sorted(sources.items(), key=lambda kv: -kv[1]),
        op_name=op_name,
        line=inst.line,
        shape=inst.shape_text or str(inst.shape),  # XLA text may leave the shape out
        module=module_name,
        rank=inst.shape.rank,
    )


def _kernels_of(module: "Module", op_sources: list) -> list[Kernel]:
    out: list[Kernel] = []
    for comp in kernel_computations(module):
        for inst in comp.instructions:
            if inst.opcode in NOT_KERNELS:
                continue
            out.append(_kernel(inst, comp, module.name, op_sources))
    return out


def fusion_report(module: "Module | Iterable[Module]") -> FusionReport:
    """The kernels of ``module`` (or of several modules, one after another) with a summary."""
    modules = [module] if hasattr(module, "computations") else list(module)  # type: ignore[arg-type]
    kernels: list[Kernel] = []
    op_sources: list[tuple[str, str, str, str, Cost]] = []
    xla = ZERO
    flagged: list[str] = []
    for m in modules:
        kernels.extend(_kernels_of(m, op_sources))
        mc = module_cost(m)
        xla = xla + mc.total
        flagged.extend(f"{m.name}/{f.computation}/{f.name}: {f.reason}" for f in mc.flagged)
    return FusionReport(kernels, _summarize([m.name for m in modules], kernels, xla, flagged),
                        op_sources)  # fmt: skip


def _summarize(names: list[str], kernels: list[Kernel], xla: Cost, flagged: list[str]) -> FusionSummary:
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
    notes: list[str] = []
    if elementwise:
        notes.append(
            f"{len(elementwise)} elementwise op(s) left unfused: each reads its inputs from "
            f"memory and writes its result back ({format_bytes(elementwise_bytes)} in all), a "
            "round trip between kernels that fusing would avoid"
        )
    if flagged:
        notes.append(f"{len(flagged)} op(s) with unknown cost (custom-calls or unknown opcodes): "
                     "counted as their boundary bytes and 0 FLOPs")  # fmt: skip
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
        notes=notes,
    )




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
                "source": where, "ops": 0, "kernels": [], "flops": 0, "transcendentals": 0,
                "_seen": set(),
            }  # fmt: skip
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


def by_source(report: FusionReport) -> "pandas.DataFrame":
    """One row per source line: how many ops came from it, the kernels they ended in, and the
    FLOPs of those ops (an op's own FLOPs; they sum to the kernels' FLOPs)."""
    import pandas as pd

    return pd.DataFrame(source_rows(report), columns=list(SOURCE_COLUMNS))


# ------------------------------------------------------------------------------------------
# Targets, filters, sorting
# ------------------------------------------------------------------------------------------


def load_target(target: Any) -> list["Module"]:
    """The optimized module(s) of ``target``: a Module, a list of them, a path to an HLO text
    file, or any TARGET :func:`hloscope.capture.target.load_modules` reads (a dump folder, a
    script), which yields the after-optimization modules."""
    from ..hlo.model import Module

    if isinstance(target, Module):
        return [target]
    if isinstance(target, (list, tuple)) and all(isinstance(m, Module) for m in target):
        return list(target)
    if isinstance(target, (str, Path)):
        try:
            from ..capture.target import load_modules
        except ImportError:  # pragma: no cover - a build without the capture package
            from ..hlo.parser import parse_modules

            return parse_modules(target)
        modules = list(load_modules(target))
        if not modules:
            raise ValueError(f"{target}: no after-optimization HLO module found")
        return modules
    raise TypeError(f"cannot read HLO modules from a {type(target).__name__}")


def fusions(target: Any) -> "pandas.DataFrame":
    """A DataFrame with one row per kernel of ``target``'s optimized module(s).

    ``target`` is a :class:`~hloscope.hlo.model.Module`, a list of them, or a path to an HLO
    text file (or, when :mod:`hloscope.capture.target` is present, any target it loads: a dump
    folder or a script). Columns are :data:`COLUMNS`; ``report.summary`` is on
    ``df.attrs["summary"]``.
    """
    report = fusion_report(load_target(target))
    frame = report.to_frame()
    frame.attrs["summary"] = report.summary.to_dict()
    return frame


_FILTER_RE = re.compile(r"^\s*([A-Za-z_]+)\s*(!=|>=|<=|=|>|<|~)\s*(.*?)\s*$")
_ALIASES = {"op": "ops", "opcode": "opcode", "target": "backend_kind", "kernel": "name"}
_LIST_COLUMNS = frozenset({"ops", "sources"})


@dataclass(frozen=True, slots=True)
class RowFilter:
    """``COLUMN OP VALUE`` with OP one of ``= != > < >= <= ~`` (``~``: contains, case-blind)."""

    column: str
    op: str
    value: str

    def __call__(self, row: dict[str, Any]) -> bool:
        column, op, value = self.column, self.op, self.value
        if column == "opcode" and op in ("=", "!="):
            # "opcode=dot" matches a kernel that is a dot or has a dot fused into it.
            hit = row["opcode"] == value or value in row["ops"]
            return hit if op == "=" else not hit
        cell = row.get(column)
        if column in _LIST_COLUMNS:
            if op == "~":
                return any(value.lower() in str(v).lower() for v in cell)
            hit = value in cell
            return hit if op == "=" else not hit if op == "!=" else _bad_op(self)
        if op == "~":
            return value.lower() in str(cell).lower()
        if op in ("=", "!="):
            hit = _equal(cell, value)
            return hit if op == "=" else not hit
        number = _number(value, self)
        if cell is None:
            return False
        return {">": cell > number, "<": cell < number, ">=": cell >= number,
                "<=": cell <= number}[op]  # fmt: skip

    def __str__(self) -> str:
        return f"{self.column}{self.op}{self.value}"


class ReportOptionError(HloscopeError, ValueError):
    """A filter or sort column the report cannot apply (a user error, shown as one line)."""


def _bad_op(f: RowFilter) -> bool:
    raise ReportOptionError(f"filter {f}: column {f.column!r} holds lists; use = != or ~")


def _equal(cell: Any, value: str) -> bool:
    if isinstance(cell, (int, float)) and not isinstance(cell, bool):
        try:
            return float(value) == cell
        except ValueError:
            return False
    return str(cell) == value


_SUFFIXES = {"k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "kib": 2**10, "mib": 2**20, "gib": 2**30}


def _number(value: str, f: RowFilter) -> float:
    m = re.fullmatch(r"(-?[0-9.]+(?:e-?\d+)?)\s*([A-Za-z]*)", value)
    if m is not None:
        scale = _SUFFIXES.get(m.group(2).lower(), None) if m.group(2) else 1
        if scale is not None:
            try:
                return float(m.group(1)) * scale
            except ValueError:
                pass
    raise ReportOptionError(f"filter {f}: {value!r} is not a number")


def parse_filter(expr: str) -> RowFilter:
    """Read ``kind=kLoop``, ``opcode=dot``, ``flops>1e6``, ``source~model.py``..."""
    m = _FILTER_RE.match(expr)
    if m is None:
        raise ReportOptionError(f"bad filter {expr!r}: expected COLUMN=VALUE (or != > < >= <= ~)")
    column, op, value = m.groups()
    column = _ALIASES.get(column, column)
    if column not in COLUMNS:
        raise ReportOptionError(f"bad filter {expr!r}: unknown column {column!r} "
                         f"(columns: {', '.join(c for c in COLUMNS)})")  # fmt: skip
    return RowFilter(column, op, value)


def filter_rows(rows: list[dict[str, Any]], exprs: Iterable[str]) -> list[dict[str, Any]]:
    """Rows matching every filter expression (see :func:`parse_filter`)."""
    filters = [parse_filter(e) for e in exprs]
    return [r for r in rows if all(f(r) for f in filters)]


def sort_rows(rows: list[dict[str, Any]], column: str, *, descending: bool | None = None) -> list[dict[str, Any]]:
    """Rows sorted by ``column`` (numbers largest first, text A-Z; ``-col`` flips it)."""
    flip = column.startswith("-")
    column = _ALIASES.get(column.lstrip("-+"), column.lstrip("-+"))
    if not rows:
        return rows
    if column not in rows[0]:
        raise ReportOptionError(f"cannot sort by {column!r}: columns are {', '.join(rows[0])}")
    numeric = any(isinstance(r[column], (int, float)) and not isinstance(r[column], bool)
                  for r in rows)  # fmt: skip
    if descending is None:
        descending = numeric
    if flip:
        descending = not descending
    if numeric:
        missing = [r for r in rows if r[column] is None]
        present = [r for r in rows if r[column] is not None]
        present.sort(key=lambda r: r[column], reverse=descending)
        return present + missing
    return sorted(rows, key=lambda r: str(r[column]), reverse=descending)


def rows_to_csv(rows: list[dict[str, Any]], columns: Sequence[str] | None = None) -> str:
    """CSV text of ``rows``; list cells are joined with ``;``, dict cells as ``k=v;k=v``."""
    if columns is None:
        columns = list(rows[0]) if rows else list(COLUMNS)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_csv_cell(row.get(c)) for c in columns])
    return out.getvalue()


def _csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, dict):
        return ";".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ";".join(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:.6g}"
    return value

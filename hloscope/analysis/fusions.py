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
* the source lines its ops came from (``file:line (function)``, the innermost frame in the
  user's own code, see :mod:`hloscope.analysis.provenance`), most frequent first, and the
  whole call stack of the first (``stack``). TensorFlow records only its own ``ops.py`` line,
  so there the source is the Keras layer path in ``op_name`` (``model_1/dense_1``).

Each row also says where the kernel runs (``where``): ``entry``, ``while.4 body ×50``
with the loop's known trip count, ``cond.1 branch 0``, each step named by its instruction
and, when its metadata says, by what and where in the source it came from (``(while at
model.py:12)``), instead of XLA's computation names (``region_3.11.clone.clone``, still in
``computation``). ``trip_count`` is the innermost loop's known trip count and ``executions``
how often the kernel runs per run of the module (the product of the loops' counts). A kernel
inside a loop is costed for one iteration, as XLA does.

The summary totals (FLOPs, transcendentals, bytes) count what XLA's ``HloCostAnalysis``
counts: each loop body once and, of a ``conditional``, each quantity's costliest branch (only
one branch runs), so the FLOPs and transcendentals equal
:func:`~hloscope.analysis.cost.module_cost`'s and ``compiled.cost_analysis()``'s; the
``executed_*`` totals multiply loop bodies by their known trip counts
(:attr:`~hloscope.analysis.cost.ModuleCost.executed`): the work one call really does. The
summary counts kernels, fusions by kind and ops left unfused. An elementwise op on arrays
left unfused is worth a look (``unfused_elementwise``): it reads its inputs from memory and
writes its result back, a round trip that fusing it into its producer or consumer would avoid.
The summary's byte total is over kernels; :func:`~hloscope.analysis.cost.module_cost`
(``xla_bytes_accessed``) also counts the 8-byte pointer tables of ``tuple`` instructions.
:func:`by_source` turns the report around: for each source line, the kernels its ops ended up
in.

This module computes; it does not word or print. Filtering, sorting, CSV and the summary's
notes live in :mod:`hloscope.render.rows`, tables in :mod:`hloscope.render.fusion_table`.
Everything here takes parsed :class:`~hloscope.hlo.model.Module` objects: to report on a file,
a dump folder or a script, resolve the TARGET first (``hloscope.fusions("model.txt")`` does).
"""

from __future__ import annotations

import functools
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from itertools import compress, repeat
from typing import TYPE_CHECKING, Any, Literal

from ..dataframes import require_pandas
from ..hlo.gc_pause import gc_paused
from ..hlo.model import Instruction, Module
from ..hlo.opcodes import FREE_OPCODES, category_of
from ..hlo.structure import structure_id
from ..hlo.tiling import module_has_tpu_layouts
from .cost import (
    ZERO,
    Cost,
    Placement,
    Role,
    Step,
    body_costs,
    control_flow_cost,
    fused_body_cost,
    instruction_costs,
    module_cost,
    placements,
)
from .hbm import _PREFETCH_OPCODES, PREFETCH, hbm_bytes, is_free_custom_call, is_prefetch
from .provenance import layer_path, source_of, stack_source, tf_function_name

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from ..hlo.metadata import StackFrame
    from ..hlo.model import Computation

__all__ = [
    "Kernel",
    "FusionSummary",
    "FusionReport",
    "fusion_report",
    "read_bodies_in_children",
    "fusions",
    "by_source",
    "source_rows",
    "op_source",
    "control_flow_label",
    "loop_rows",
    "report_modules",
    "COLUMNS",
    "SOURCE_COLUMNS",
    "NOT_KERNELS",
    "is_kernel",
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
# What FusionReport.op_sources holds per op: (source, kernel name, computation, module, cost).
OpSource = tuple[str, str, str, str, Cost]
UNKNOWN_SOURCE = "<unknown>"
ENTRY = Role.ENTRY.value  # the ``where`` of a kernel outside any loop, branch or call

# Columns of a report row, in display order (also the names --sort and --filter accept).
COLUMNS: tuple[str, ...] = (
    "module",
    "computation",
    "where",
    "trip_count",
    "executions",
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
    "stack",
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
    where: str = ENTRY  # where it runs: "entry", "while.4 body ×50 (while at model.py:12)"...
    trip_count: int | None = None  # the innermost enclosing loop's known trip count
    executions: int = 1  # runs per run of the module (product of the loops' trip counts)
    # The call stack of the kernel's source line, innermost first ("file:line (function)").
    stack: list[str] = field(default_factory=list)
    # Bytes through HBM (hloscope.analysis.hbm): set for modules XLA:TPU made, whose layouts
    # place some arrays on chip; None elsewhere (there every byte is device memory).
    hbm_bytes: int | None = None

    @property
    def is_fusion(self) -> bool:
        return self.opcode == "fusion"

    @property
    def source(self) -> str:
        return self.sources[0][0] if self.sources else ""

    def row(self) -> dict[str, Any]:
        """The kernel as a flat dict with the :data:`COLUMNS` keys (and ``hbm_bytes`` after
        ``bytes`` for a TPU module's kernel)."""
        # Written out, not through json_fields: a deep model's report makes thousands of rows,
        # and reading each field by its name in a string took a tenth of the report's time.
        # Lists and dicts are new ones, as json_fields gives them.
        c = self.cost
        row: dict[str, Any] = {
            "module": self.module,
            "computation": self.computation,
            "where": self.where,
            "trip_count": self.trip_count,
            "executions": self.executions,
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
        }
        if self.hbm_bytes is not None:
            row["hbm_bytes"] = self.hbm_bytes
        row["flops"] = c.flops
        row["transcendentals"] = c.transcendentals
        row["intensity"] = c.arithmetic_intensity
        row["source"] = self.sources[0][0] if self.sources else ""
        row["op_name"] = self.op_name
        row["flag"] = c.flag
        row["ops"] = list(self.ops)
        row["op_counts"] = dict(self.op_counts)
        row["sources"] = [s for s, _ in self.sources]
        row["stack"] = list(self.stack)
        row["line"] = self.line
        return row


@dataclass(slots=True)
class FusionSummary:
    """Counts over a report's kernels.

    ``flops``, ``transcendentals`` and the ``bytes*`` are the kernels' totals under XLA's
    control-flow rules (loop bodies once, the costliest branch); ``xla_*`` are
    :func:`~hloscope.analysis.cost.module_cost`'s totals (kernels plus tuple pointer tables);
    ``executed_*`` the kernels' totals with loop bodies times their known trip counts. ``loops``
    lists each ``while`` (see :func:`loop_rows`); ``unknown_trip_counts`` those XLA gave no
    trip count (counted once in ``executed_*``).
    """

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
    executed_flops: int = 0
    executed_transcendentals: int = 0
    executed_bytes: int = 0
    loops: list[dict[str, Any]] = field(default_factory=list)
    unknown_trip_counts: list[str] = field(default_factory=list)
    # TPU modules only (None elsewhere): the kernels' bytes through HBM under the same
    # control-flow rules as ``bytes``, and how many kernels are prefetches.
    hbm_bytes: int | None = None
    executed_hbm_bytes: int | None = None
    prefetch_count: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in self.__slots__}
        for name in ("hbm_bytes", "executed_hbm_bytes", "prefetch_count"):
            if out[name] is None:
                del out[name]  # CPU and GPU reports read as they always did
        return out


@dataclass(frozen=True, slots=True)
class _OpRows:
    """One kernel's rows of :attr:`FusionReport.op_sources`, made when first asked for."""

    wheres: list[str]  # each op's source ("" for none)
    kernel: str
    computation: str
    module: str
    costs: Callable[[], list[Cost]]  # each op's cost: a fused body's asked for only then

    def rows(self) -> Iterator[OpSource]:
        return zip(
            map(_SHOWN.get, self.wheres, self.wheres),  # "" shown as UNKNOWN_SOURCE
            repeat(self.kernel),
            repeat(self.computation),
            repeat(self.module),
            self.costs(),
        )


_OP_ROWS_LOCK = threading.Lock()


@dataclass(slots=True, eq=False, init=False)
class FusionReport:
    """The kernels of one or more modules and their summary."""

    kernels: list[Kernel]
    summary: FusionSummary
    _op_sources: list[OpSource] = field(repr=False)
    _pending: list[_OpRows] = field(repr=False)

    def __init__(
        self,
        kernels: list[Kernel],
        summary: FusionSummary,
        op_sources: list[OpSource] | None = None,
        *,
        pending: list[_OpRows] | None = None,
    ) -> None:
        self.kernels = kernels
        self.summary = summary
        self._op_sources = [] if op_sources is None else op_sources
        self._pending = [] if pending is None else pending  # op_sources' rows still to make

    @property
    def op_sources(self) -> list[OpSource]:
        """Per-op attribution for :func:`by_source`: (source, kernel name, computation, module,
        cost) of each op of each kernel, in order. Made on first use: it is the one part of a
        report that costs every fused op on its own, which the kernel table never needs (a
        deep model's 400k fused ops are costed per body, at the kernel's boundary)."""
        with _OP_ROWS_LOCK:
            if self._pending:
                for chunk in self._pending:
                    self._op_sources.extend(chunk.rows())
                self._pending.clear()
        return self._op_sources

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FusionReport):
            return NotImplemented
        return (self.kernels, self.summary, self.op_sources) == (
            other.kernels,
            other.summary,
            other.op_sources,
        )

    def rows(self) -> list[dict[str, Any]]:
        return [k.row() for k in self.kernels]

    def to_frame(self) -> pandas.DataFrame:
        pd = require_pandas()

        columns = list(COLUMNS)
        if any(k.hbm_bytes is not None for k in self.kernels):
            columns.insert(columns.index("bytes") + 1, "hbm_bytes")
        return pd.DataFrame(self.rows(), columns=columns)

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows(), "summary": self.summary.to_dict()}


# ------------------------------------------------------------------------------------------
# Building the report
# ------------------------------------------------------------------------------------------


def op_source(inst: Instruction) -> str:
    """Where ``inst`` came from: ``file:line (function)`` of the innermost frame of its stack in
    the user's own code (not jax's, flax's or the standard library's; see
    :mod:`hloscope.analysis.provenance`), the layer path of its ``op_name`` for TensorFlow ops,
    or ``""`` when it has no location."""
    module = inst.computation.module if inst.computation is not None else None
    return source_of(inst.stack, inst.op_name, module.name if module else "")


class _Sources:
    """:func:`op_source` for the ops of one module, remembered per stack and per op name.

    A model's thousands of ops share a few hundred stacks; resolving one means walking its
    parents and testing each file, so each stack is worded once (and each TF op name once).
    """

    __slots__ = ("_module", "_function", "_by_stack", "_by_name", "_stacks")

    def __init__(self, module: Module) -> None:
        self._module = module
        self._function = tf_function_name(module.name)
        self._by_stack: dict[tuple[int, str, int], str | None] = {}
        self._by_name: dict[str, str] = {}
        self._stacks: dict[int, list[str]] = {}  # frame id -> its stack, worded

    def __call__(self, inst: Instruction) -> str:
        return self.many((inst,))[0]

    def many(self, members: Sequence[Instruction]) -> list[str]:
        """Where each of ``members`` came from. The key is what Instruction.stack reads (the
        frame table entry, else the metadata's location), read without decoding the whole
        metadata; a kernel's ops mostly share a few stacks, found in the cache."""
        by_stack = self._by_stack
        out: list[str] = []
        for inst, key in zip(members, map(_LOCATION_OF, members)):
            where: str | None | Literal[_Unseen.UNSEEN] = by_stack.get(key, _UNSEEN)
            if where is _UNSEEN:
                where = by_stack[key] = stack_source(inst.stack)
            if where is None or (not where and self._function):
                where = self._by_op_name(inst.op_name)
            out.append(where)
        return out

    def of_members(self, members: _Members) -> list[str]:
        """:meth:`many` of a kernel's ops read from its fused body's text: the stacks of the
        locations not seen yet, then each op's from the cache in C; the op names (what
        TensorFlow's ops need) only where a location does not answer."""
        by_stack = self._by_stack
        locations = members.locations
        for key in set(locations).difference(by_stack):
            by_stack[key] = stack_source(members.stack_at(locations.index(key)))
        out: list[str | None] = list(map(by_stack.__getitem__, locations))
        if None in out or (self._function and "" in out):
            names = members.op_names()
            for k, where in enumerate(out):
                if where is None or (not where and self._function):
                    out[k] = self._by_op_name(names[k])
        return out  # type: ignore[return-value]

    def stack(self, members: _Members, wheres: Sequence[str], source: str) -> list[str]:
        """The whole call stack (``file:line (function)``, innermost first) of the kernel's
        first op attributed to its ``source``: the chain that line sits in. A stack of the
        module's frame table is worded once per frame id."""
        k = wheres.index(source)
        frame_id = members.locations[k][0]
        if frame_id:
            known = self._stacks.get(frame_id)
            if known is None:
                frames = self._module.stack_frames(frame_id)
                if not frames:  # an id the table lacks: the op's own metadata says
                    return [str(frame) for frame in members.stack_at(k)]
                known = self._stacks[frame_id] = [str(frame) for frame in frames]
            return list(known)
        return [str(frame) for frame in members.stack_at(k)]

    def _by_op_name(self, name: str) -> str:
        found = self._by_name.get(name)
        if found is None:
            found = self._by_name[name] = layer_path(name, self._function)
        return found


class _Unseen(Enum):
    """A sentinel of one value (an enum, so a type checker narrows ``where is _UNSEEN``)."""

    UNSEEN = 0


_UNSEEN = _Unseen.UNSEEN
_SHOWN = {"": UNKNOWN_SOURCE}
# The property's getter itself: called per kernel member without the attribute lookup.
_LOCATION_OF: Callable[[Instruction], tuple[int, str, int]] = Instruction.__dict__["location"].fget


@dataclass(frozen=True, slots=True)
class _Layout:
    """What a kernel's row reads of its fused body's structure alone: which ops are members
    (all but the parameters) and where, their opcodes, counted and signed, and the root's.
    Alike bodies (:func:`~hloscope.hlo.structure.structure_id`) share one: a deep model's
    thousands of fusions run a few hundred bodies."""

    is_member: list[bool]
    positions: list[int]
    opcodes: list[str]
    root: str
    op_counts: dict[str, int]
    signature: str

    @classmethod
    def of(cls, comp: Computation) -> _Layout:
        ahead = comp.read_ahead(_opcodes_and_root)
        if ahead is not None:  # a forked parse's child read the body
            joined, count, root_at = ahead[0]
            opcodes = joined.split("\n") if count else []
        else:
            opcodes = comp.opcodes()
            root_at = comp.root_position()
        is_member = list(map("parameter".__ne__, opcodes))
        members = list(compress(opcodes, is_member))
        root = opcodes[root_at] if root_at >= 0 else ""
        by_opcode = Counter(members)  # a category per distinct opcode, not per op
        op_counts: Counter[str] = Counter()
        for opcode, n in by_opcode.items():
            op_counts[category_of(opcode)] += n
        return cls(
            is_member,
            list(compress(range(len(opcodes)), is_member)),
            members,
            root,
            dict(op_counts),
            _signature(by_opcode, root),
        )


def _opcodes_and_root(columns: list[Sequence[str]]) -> tuple[str, int, int]:
    """What :meth:`_Layout.of` reads of a body, from its parser's columns (ROOT, name, shape,
    opcode, ...), as a forked parse's child sends it: the opcodes joined by line breaks (one
    string: sent and split again in C; no opcode holds one), how many, and the position of
    the root (:meth:`~hloscope.hlo.model.Computation.root_position`)."""
    roots, opcodes = columns[0], columns[3]
    count = len(opcodes)
    return "\n".join(opcodes), count, next(compress(range(count), roots), count - 1)


class _Members:
    """A kernel's ops: its fused body's but the parameters, or the op itself. Their opcodes,
    locations and op names are read from the body's text; an Instruction is made (the body
    built) only where the text cannot answer (see :meth:`Computation.stack_at`). A deep
    model's kernels repeat a few hundred bodies, whose costs are known by structure: building
    each of its 400k fused ops cost more than the rest of the report."""

    __slots__ = ("comp", "positions", "opcodes", "locations", "_single")

    def __init__(
        self,
        comp: Computation | None,
        single: Instruction | None = None,
        layout: _Layout | None = None,
    ) -> None:
        self.comp = comp
        self._single = single
        if comp is None:
            self.positions: list[int] = [0] if single is not None else []
            self.opcodes: list[str] = [single.opcode] if single is not None else []
            self.locations: list[tuple[int, str, int]] = (
                [single.location] if single is not None else []
            )
            return
        assert layout is not None
        self.positions = layout.positions
        self.opcodes = layout.opcodes
        self.locations = list(compress(comp.locations(), layout.is_member))

    def stack_at(self, k: int) -> list[StackFrame]:
        """The stack of the ``k``-th op (:attr:`Instruction.stack`)."""
        if self.comp is None:
            assert self._single is not None
            return self._single.stack
        return self.comp.stack_at(self.positions[k], self.locations[k])

    def op_names(self) -> list[str]:
        if self.comp is None:
            return [self._single.op_name] if self._single is not None else []
        names = self.comp.op_names()
        return [names[p] for p in self.positions]


def _member_costs(
    costs_in: Callable[[Computation], list[Cost]], fused: Computation, is_member: list[bool]
) -> list[Cost]:
    return list(compress(costs_in(fused), is_member))


def _backend_kind(inst: Instruction) -> str:
    """``fusion_config.kind`` from a fusion's backend config; a custom-call's target."""
    attrs = inst.attrs
    if inst.opcode == "custom-call":
        return attrs.get("custom_call_target", "")
    if "backend_config" not in attrs:
        return ""
    # Most kernels' configs repeat a few texts: each decoded and read once.
    raw = attrs.raw("backend_config")
    kind = _KIND_OF_CONFIG.get(raw)
    if kind is None:
        kind = _config_kind(attrs.get("backend_config"))
        if len(_KIND_OF_CONFIG) < _KINDS_KEPT:
            _KIND_OF_CONFIG[raw] = kind
    return kind


# The kind of each backend config text seen (a decoded config depends on its text alone).
_KIND_OF_CONFIG: dict[str, str] = {}
_KINDS_KEPT = 4096


def _config_kind(config: object) -> str:
    if not isinstance(config, dict):  # not JSON
        return ""
    # GPU: {"fusion_backend_config":{"kind":"__triton_gemm",...}}; CPU: {"fusion_config":{...}}.
    fusion = config.get("fusion_backend_config")
    if fusion is None:
        fusion = config.get("fusion_config")
    kind = fusion.get("kind", "") if isinstance(fusion, dict) else ""
    return kind if isinstance(kind, str) else ""


def _signature(ops: Sequence[str] | Counter[str], root: str) -> str:
    """The kernel's opcodes, most frequent first (``ops`` as a list, or counted already)."""
    by_opcode = ops if isinstance(ops, Counter) else Counter(ops)
    counts = {op: n for op, n in by_opcode.items() if op not in _SIGNATURE_SKIP}
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
    costs_in: Callable[[Computation], list[Cost]],
    op_sources: list[_OpRows],
    layouts: dict[int, _Layout],
    async_called: frozenset[str],
) -> Kernel:
    # Metadata first: the model reads it fastest before anything (here: finding the fused
    # computation, the cost) has decoded the instruction's other attributes.
    own_name = inst.op_name
    # The costs before the body is built: a body alike to one costed already is not walked.
    cost = cost_of(inst)
    fused = inst.fused_computation if inst.opcode == "fusion" else None
    member_costs: Callable[[], list[Cost]]
    if fused is not None:
        sid = structure_id(fused)
        layout = layouts.get(sid)
        if layout is None:
            layout = layouts[sid] = _Layout.of(fused)
        members = _Members(fused, layout=layout)
        member_costs = functools.partial(_member_costs, costs_in, fused, layout.is_member)
        root, ops, op_counts = layout.root, list(layout.opcodes), dict(layout.op_counts)
        signature = layout.signature
        kind = inst.fusion_kind or ""
    elif inst.opcode == "fusion":  # without a fused computation: no ops
        members = _Members(None)
        member_costs, root, ops, op_counts, signature = list, "", [], {}, ""
        kind = inst.fusion_kind or ""
    else:
        members = _Members(None, inst)
        member_costs = functools.partial(list, (cost,))
        root = inst.opcode
        ops = members.opcodes
        op_counts = {category_of(root): 1}
        signature = _signature(ops, root)
        # Only an op of a computation an async-start calls may be a move XLA runs apart;
        # asking is_prefetch elsewhere would find the module's callers, building every body.
        prefetch = inst.opcode in _PREFETCH_OPCODES or (
            comp.name in async_called and is_prefetch(inst)
        )
        kind = PREFETCH if prefetch else UNFUSED
    wheres = source_of.of_members(members)
    # The kernel's op_name: its own (XLA gives a fusion its root's), else its root's.
    op_name = own_name
    if not op_name and fused is not None and fused.root is not None:
        op_name = fused.root.op_name
    sources: Counter[str] = Counter(filter(None, wheres))
    ranked = sorted(sources.items(), key=lambda kv: -kv[1])  # stable: ties keep op order
    op_sources.append(_OpRows(wheres, inst.name, comp.name, module_name, member_costs))
    return Kernel(
        name=inst.name,
        computation=comp.name,
        opcode=inst.opcode,
        kind=kind,
        backend_kind=_backend_kind(inst),
        root=root,
        ops=ops,
        op_counts=op_counts,
        signature=signature,
        cost=cost,
        sources=ranked,
        stack=source_of.stack(members, wheres, ranked[0][0]) if ranked else [],
        op_name=op_name,
        line=inst.line,
        shape=inst.shape_text or str(inst.shape),  # XLA text may leave the shape out
        module=module_name,
        rank=inst.shape.rank,
    )


def _kernels_of(module: Module, op_sources: list[_OpRows], tpu: bool) -> list[Kernel]:
    out: list[Kernel] = []
    source_of = _Sources(module)
    where_of = _Wheres(source_of)
    cost_of = instruction_costs(module)
    costs_in = body_costs(module)
    layouts: dict[int, _Layout] = {}
    async_called = _called_by_async(module)
    for placement in placements(module).values():
        comp = placement.computation
        where = where_of(placement)
        for inst in comp.instructions:
            if not is_kernel(inst):
                continue
            kernel = _kernel(
                inst,
                comp,
                module.name,
                source_of,
                cost_of,
                costs_in,
                op_sources,
                layouts,
                async_called,
            )
            if tpu:
                kernel.hbm_bytes = hbm_bytes(inst, kernel.cost)
            kernel.where = where
            kernel.trip_count = placement.trip_count
            kernel.executions = placement.executions
            out.append(kernel)
    return out


def _called_by_async(module: Module) -> frozenset[str]:
    """The names of the computations an ``async-start`` calls (what is_prefetch asks of a
    move's computation), found from each body's opcode counts: no other body read."""
    names: set[str] = set()
    for comp in module.computations:
        if "async-start" in comp.opcode_counts():
            for inst in comp.instructions:
                if inst.opcode == "async-start":
                    names.update(called.name for called in inst.called_computations)
    return frozenset(names)


def is_kernel(inst: Instruction) -> bool:
    """Whether ``inst`` is a kernel of its computation: not an op that only names buffers
    (:data:`NOT_KERNELS`, a ``ConcatBitcast`` custom call), not control flow."""
    return inst.opcode not in NOT_KERNELS and not is_free_custom_call(inst)


# ------------------------------------------------------------------------------------------
# Where kernels run
# ------------------------------------------------------------------------------------------

# Joins the steps of a nested placement ("while.2 body ×4 / cond.1 branch 0").
WHERE_SEP = " / "


# A where names at most this many steps of a nested placement: the outermost and the innermost,
# with a count of the others between ("… 9,993 more …"). Ten thousand nested loops would
# otherwise make every kernel's where as long as the nesting is deep.
WHERE_HEAD = 3
WHERE_TAIL = 4


@dataclass(frozen=True, slots=True)
class _Trail:
    """The steps a where names, kept short: the first :data:`WHERE_HEAD`, then the last
    :data:`WHERE_TAIL` of the rest, and how many there are in all."""

    head: tuple[Step, ...] = ()
    tail: tuple[Step, ...] = ()
    count: int = 0

    def plus(self, step: Step) -> _Trail:
        if self.count < WHERE_HEAD:
            return _Trail(self.head + (step,), (), self.count + 1)
        return _Trail(self.head, (self.tail + (step,))[-WHERE_TAIL:], self.count + 1)


class _Wheres:
    """:func:`_where` for the placements of one module, each extending its parent's trail.

    Worded from the whole path, each where would take time as long as the path; from the
    parent's trail (a placement's parent is placed before it), each takes one step.
    """

    __slots__ = ("_source_of", "_trails")

    def __init__(self, source_of: Callable[[Instruction], str]) -> None:
        self._source_of = source_of
        self._trails: dict[int, _Trail] = {}

    def __call__(self, placement: Placement, last_call: bool = True) -> str:
        step = placement.step
        if step is None or placement.parent is None:
            return ENTRY
        if last_call and step.role == Role.CALL:
            trail = self._trail(placement.parent).plus(step)
        else:
            trail = self._trail(placement)
        return self._text(trail)

    def _trail(self, placement: Placement) -> _Trail:
        """The named steps of ``placement``'s path: every step but the calls."""
        trails = self._trails
        # Up to the nearest placement with a trail, then back down (no recursion on depth).
        chain: list[Placement] = []
        node: Placement | None = placement
        while node is not None and id(node) not in trails:
            chain.append(node)
            node = node.parent
        trail = trails[id(node)] if node is not None else _Trail()
        for p in reversed(chain):
            if p.step is not None and p.step.role != Role.CALL:
                trail = trail.plus(p.step)
            trails[id(p)] = trail
        return trail

    def _text(self, trail: _Trail) -> str:
        if not trail.count:
            return ENTRY
        words = [_step_text(s, self._source_of) for s in trail.head]
        hidden = trail.count - len(trail.head) - len(trail.tail)
        if hidden:
            words.append(f"\u2026 {hidden:,} more \u2026")
        words += [_step_text(s, self._source_of) for s in trail.tail]
        return WHERE_SEP.join(words)


def _where(
    placement: Placement, source_of: Callable[[Instruction], str], last_call: bool = True
) -> str:
    """``entry``, or the control-flow steps to the computation, outermost first.

    A ``call`` step is named only when it is the last (and ``last_call``): XLA's CPU backend
    wraps loops in small calls (``xla_cpu_small_call``) that run once and say nothing a
    reader needs. Past :data:`WHERE_HEAD` + :data:`WHERE_TAIL` steps, the middle ones are
    counted instead of named.
    """
    return _Wheres(source_of)(placement, last_call)


def _step_text(step: Step, source_of: Callable[[Instruction], str]) -> str:
    """``while.4 body ×50 (while at model.py:12)``; ``×?`` when XLA knows no trip count."""
    inst = step.instruction
    if step.in_loop:
        count = "?" if step.trip_count is None else str(step.trip_count)
        text = f"{inst.name} {step.role} \u00d7{count}"
    elif step.role == Role.BRANCH:
        text = f"{inst.name} branch {step.branch}"
    elif inst.opcode == "async-start":  # runs beside the entry: say so, it changes the timing
        text = f"{inst.name} async"
    else:
        text = inst.name
    label = control_flow_label(inst, source_of(inst))
    return f"{text} ({label})" if label else text


def control_flow_label(inst: Instruction, source: str) -> str:
    """A loop or branch named by what the program wrote: ``while at model.py:12``.

    The kind is the last part of the op's ``op_name`` (``jit(f)/while`` -> ``while``; JAX
    lowers ``scan`` and ``fori_loop`` to a while too), the place its source line (file name
    only; ``source`` as :func:`op_source` gives it). Without a source line the whole
    ``op_name`` stands in (TensorFlow's ``model/lstm/while`` names the layer); without either,
    ``""``.
    """
    op_name = inst.op_name
    if not source:
        return op_name
    kind = next((part for part in reversed(op_name.split("/")) if part), inst.opcode)
    where = source.partition(" (")[0]
    path, sep, line = where.rpartition(":")
    short = path.rsplit("/", 1)[-1] + sep + line if sep else where.rsplit("/", 1)[-1]
    return f"{kind} at {short}"


def loop_rows(module: Module) -> list[dict[str, Any]]:
    """One dict per ``while`` the entry reaches: its name, ``label`` (see
    :func:`control_flow_label`), known ``trip_count`` (``None``: unknown), ``executions``
    (iterations per run of the module, enclosing loops included), ``body`` and ``condition``
    computations, and ``where`` the while itself runs."""
    source_of = _Sources(module)
    where_of = _Wheres(source_of)
    placed = list(placements(module).values())
    # The placement of each while's body, found by the step that leads into it.
    bodies = {
        id(p.step.instruction): p for p in placed if p.step is not None and p.step.role == Role.BODY
    }
    rows: list[dict[str, Any]] = []
    for placement in placed:
        for inst in placement.computation.instructions:
            if inst.opcode != "while":
                continue
            body = bodies.get(id(inst))
            rows.append(
                {
                    "name": inst.name,
                    "label": control_flow_label(inst, source_of(inst)),
                    "trip_count": body.trip_count if body else None,
                    "executions": body.executions if body else placement.executions,
                    "body": body.computation.name if body else "",
                    "condition": _called_attr(inst, "condition"),
                    "where": where_of(placement, last_call=False),
                }
            )
    return rows


def _called_attr(inst: Instruction, attr: str) -> str:
    value = inst.attrs.get(attr)
    return str(getattr(value, "name", value) or "")


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


def read_bodies_in_children() -> None:
    """Have the forked children of the parses after this call (a big module's, on idle cores)
    send what :func:`fusion_report` reads of each body they read: its structure's digest, its
    ops' quick locations, its cost as a fused body (:func:`~.cost.fused_body_cost`) and its
    opcodes and root (what a kernel's row lists: :func:`_opcodes_and_root`). The
    report then reads none of the fused bodies' text here: on a deep model's module nearly
    every instruction is in one of a few hundred large fused bodies, each of its own structure,
    and reading them was most of the report's time."""
    from ..hlo.parser import send_structure

    send_structure(readers=(fused_body_cost, _opcodes_and_root))


@gc_paused
def fusion_report(module: Module | Iterable[Module]) -> FusionReport:
    """The kernels of ``module`` (or of several modules, one after another) with a summary.

    ``module`` is a parsed :class:`~hloscope.hlo.model.Module` or an iterable of them (the
    modules of a dump folder, say); paths are refused with a :class:`TypeError`.
    """
    modules = report_modules(module)
    kernels: list[Kernel] = []
    op_sources: list[_OpRows] = []
    totals = _Totals()
    for m in modules:
        tpu = module_has_tpu_layouts(m)
        kernels.extend(_kernels_of(m, op_sources, tpu))
        totals.add(m, tpu)
    summary = _summarize([m.name for m in modules], kernels, totals)
    return FusionReport(kernels, summary, pending=op_sources)


@dataclass(slots=True)
class _Totals:
    """What the summary adds up over modules: the kernels' costs under XLA's control-flow rules
    (static and executed), :func:`module_cost`'s total, the flagged ops and the loops."""

    kernels: Cost = ZERO
    executed: Cost = ZERO
    xla: Cost = ZERO
    hbm: int | None = None  # TPU modules: the kernels' bytes through HBM
    executed_hbm: int | None = None
    flagged: list[str] = field(default_factory=list)
    loops: list[dict[str, Any]] = field(default_factory=list)
    unknown_trip_counts: list[str] = field(default_factory=list)

    def add(self, m: Module, tpu: bool) -> None:
        cost_of = instruction_costs(m)
        loops = loop_rows(m)

        def kernel_cost(inst: Instruction) -> Cost:
            # Ops that only name buffers are no kernel: their bytes (tuple tables) stay out.
            return cost_of(inst) if is_kernel(inst) else ZERO

        def kernel_hbm(inst: Instruction) -> Cost:
            return Cost.of(read=hbm_bytes(inst, kernel_cost(inst)))

        def totals(cost_of: Callable[[Instruction], Cost]) -> tuple[Cost, Cost]:
            # Without a loop the entry reaches, what runs is what is counted: one walk.
            once = control_flow_cost(m, cost_of)
            return once, control_flow_cost(m, cost_of, trip_counts=True) if loops else once

        if tpu:
            hbm, executed_hbm = totals(kernel_hbm)
            self.hbm = hbm.bytes_accessed + (self.hbm or 0)
            self.executed_hbm = executed_hbm.bytes_accessed + (self.executed_hbm or 0)

        # Not a sum of the rows: a conditional's branches are rows, but only one of them runs.
        kernels, executed = totals(kernel_cost)
        self.kernels = self.kernels + kernels
        self.executed = self.executed + executed
        mc = module_cost(m)
        self.xla = self.xla + mc.total
        self.flagged.extend(f"{m.name}/{f.computation}/{f.name}: {f.reason}" for f in mc.flagged)
        self.loops.extend(loops)
        self.unknown_trip_counts.extend(mc.unknown_trip_counts)


def _summarize(names: list[str], kernels: list[Kernel], totals: _Totals) -> FusionSummary:
    by_kind: Counter[str] = Counter()
    unfused: Counter[str] = Counter()
    elementwise: list[str] = []
    elementwise_bytes = 0
    total, xla, executed = totals.kernels, totals.xla, totals.executed
    prefetches = sum(k.kind == PREFETCH for k in kernels)
    for k in kernels:
        if k.is_fusion:
            by_kind[f"{k.kind}/{k.backend_kind}" if k.backend_kind else k.kind] += 1
        elif k.kind != PREFETCH:  # a prefetch is data movement XLA:TPU overlaps, not an op
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
        unfused_count=len(kernels) - fusion_count - prefetches,
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
        flagged=totals.flagged,
        executed_flops=executed.flops,
        executed_transcendentals=executed.transcendentals,
        executed_bytes=executed.bytes_accessed,
        loops=totals.loops,
        unknown_trip_counts=totals.unknown_trip_counts,
        hbm_bytes=totals.hbm,
        executed_hbm_bytes=totals.executed_hbm,
        prefetch_count=prefetches if totals.hbm is not None else None,
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
    pd = require_pandas()

    return pd.DataFrame(source_rows(report), columns=list(SOURCE_COLUMNS))

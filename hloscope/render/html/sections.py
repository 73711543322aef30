"""The data of a report page's parts beyond the summary and the kernel table, and how each is
made from the analysis result it shows.

Everything here is data in, data (or text) out: :mod:`hloscope.reporting` (one layer up)
gathers the analyses a report needs from a TARGET, a capture or a module, and hands their
results to these functions, which turn them into the typed sections
:class:`~.report.Report` holds and the templates show. Nothing here reads a file, captures,
benches or looks at what kind of target a report is about.

* :func:`kernel_graph` -- :class:`KernelGraph`, the SVG picture of a kernel's neighbourhood
  (which kernels and which nodes are chosen one layer up, by :mod:`hloscope.reporting`),
  drawn by :mod:`hloscope.render.graphviz`; without ``dot`` (:func:`dot_installed`) there
  are none, and :data:`NO_DOT_NOTE` says why;
* :func:`source_view` -- :class:`ReportSourceRow`, per line of the program the kernels its
  ops ended in (:func:`~hloscope.analysis.fusions.source_rows`), with what
  :func:`explained_from` adds (:class:`Explained`: per line, its jaxpr equations, StableHLO
  ops and HLO instructions);
* :func:`timeline_from` -- :class:`Timeline`, the pass timeline of per-pass snapshots;
* :func:`recompiles_from` -- :class:`Recompiles`, the functions that compiled more than once;
* :func:`platform_check` -- :class:`PlatformCheck`, what a platform cannot compile;
* :func:`bench_section` -- :class:`BenchSection`, the program and each kernel timed;
* :func:`memory_section` -- :class:`MemorySection`, the peak memory, what is live there, and
  the timeline picture (:func:`~hloscope.render.memory_svg.render_memory_svg`);
* :func:`collectives_section` -- :class:`CollectivesSection`, the collectives of an SPMD
  module with their bytes and groups, priced on a chosen device when one is, and the step
  estimate on every device of the interconnect table (compute, exposed and hidden
  communication: "what would this cost on v5e or v4" from one module).
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from ...analysis.diff import parse_where
from ...analysis.fusions import UNKNOWN_SOURCE, FusionReport, Kernel, source_rows
from ..graphviz import render_selection
from .escape import clean_svg

if TYPE_CHECKING:  # pragma: no cover
    from ...analysis.collectives import CollectivesResult
    from ...analysis.explain import Explanation
    from ...analysis.memory import LiveBuffer, MemoryResult, Saving
    from ...analysis.passes import PassTimeline
    from ...analysis.recompiles import FunctionLedger, Ledger
    from ...hlo.graph_selection import GraphSelection

__all__ = [
    "KernelGraph",
    "kernel_graph",
    "dot_installed",
    "ReportSourceRow",
    "LineStages",
    "Explained",
    "TimelineStep",
    "Timeline",
    "CompileRow",
    "RecompiledFunction",
    "Recompiles",
    "CheckFinding",
    "PlatformCheck",
    "MxuRow",
    "MxuSection",
    "mxu_section",
    "MXU_ROWS",
    "BenchKernelRow",
    "BenchSkip",
    "BenchSection",
    "MemoryGroup",
    "MemorySection",
    "CollectiveRow",
    "DeviceStep",
    "CollectivesSection",
    "collectives_section",
    "source_view",
    "explained_from",
    "timeline_from",
    "recompiles_from",
    "platform_check",
    "bench_section",
    "memory_section",
    "MEMORY_SOURCES",
    "MEMORY_TOP",
    "STAGE_LABELS",
    "NO_DOT_NOTE",
    "GRAPH_TIMEOUT_S",
]

#: Seconds ``dot`` gets per picture before it is drawn more simply.
GRAPH_TIMEOUT_S = 15.0
NO_DOT_NOTE = (
    "graphs left out: Graphviz's 'dot' program is not installed "
    "(apt install graphviz / brew install graphviz)"
)


# ------------------------------------------------------------------------------------------
# Graphs
# ------------------------------------------------------------------------------------------


@dataclass(slots=True)
class KernelGraph:
    """The picture of one heavy kernel's neighbourhood: ``svg`` is a checked ``<svg>``
    element (:func:`~.escape.clean_svg`), ``why`` how its nodes were chosen, ``notes`` what
    the layout budget drew more simply."""

    kernel: str
    computation: str
    bytes: int
    index: int
    why: str
    svg: Markup
    hidden: int = 0
    notes: list[str] = field(default_factory=list)


def dot_installed() -> bool:
    """Whether Graphviz's ``dot`` is there to draw graphs (:data:`NO_DOT_NOTE` says when not)."""
    return shutil.which("dot") is not None


def kernel_graph(kernel: Kernel, index: int, selection: GraphSelection) -> KernelGraph:
    """The picture of ``selection``, the neighbourhood of ``kernel`` (row ``index`` of the
    kernel table) chosen one layer up, drawn within the layout budget of
    :func:`~hloscope.render.graphviz.render_selection`."""
    data, plan = render_selection(selection, "svg", GRAPH_TIMEOUT_S)
    return KernelGraph(
        kernel=kernel.name,
        computation=selection.computation.name,
        bytes=kernel.cost.bytes_accessed,
        index=index,
        why=selection.why,
        svg=Markup(clean_svg(data, f"hsg{uuid.uuid4().hex[:6]}-")),  # checked: drawing only
        hidden=selection.hidden,
        notes=list(plan.notes),
    )


# ------------------------------------------------------------------------------------------
# The source view
# ------------------------------------------------------------------------------------------


#: The stages before optimization an explanation can link, with the name a reader knows.
STAGE_LABELS: dict[str, str] = {
    "jaxpr": "jaxpr",
    "stablehlo": "StableHLO",
    "hlo": "HLO before optimization",
}
#: Ops of one stage shown per source line (the count says how many there are).
STAGE_SAMPLES = 5


@dataclass(slots=True)
class LineStages:
    """What the stages before optimization made of one source line: ``counts`` per stage
    (:data:`STAGE_LABELS` keys), the first :data:`STAGE_SAMPLES` ops' text of each
    (``samples``), and the kernels with no line of their own traced back to this one
    (``inferred_kernels``)."""

    counts: dict[str, int] = field(default_factory=dict)
    samples: dict[str, list[str]] = field(default_factory=dict)
    inferred_kernels: list[str] = field(default_factory=list)
    code: str = ""


@dataclass(slots=True)
class Explained:
    """Per source line, its :class:`LineStages`, from :mod:`hloscope.analysis.explain`.

    ``stages`` are the stages before optimization that were there to link (keys of
    :data:`STAGE_LABELS`), ``missing`` says why the others are not, and ``away`` lists the
    lines whose ops were all optimized away (``(source, code, counts)``).
    """

    lines: dict[str, LineStages]
    stages: list[str]
    frontend: str = ""
    missing: list[str] = field(default_factory=list)
    away: list[tuple[str, str, dict[str, int]]] = field(default_factory=list)

    def of(self, source: str) -> LineStages | None:
        """The stages of a ``file:line (function)`` source, if known."""
        return self.lines.get(source)


@dataclass(slots=True)
class ReportSourceRow:
    """One row of the report's source view: a line of the program and the kernels its ops
    ended in.

    ``source`` is ``file:line (function)`` (or a TensorFlow layer path, or ``<unknown>``);
    ``code`` the line's text (the gatherer puts the file's own text here when it can read it);
    ``kernels`` the kernel names with their index in the report (for links into the kernel
    table)."""

    source: str
    file: str
    line: int | None
    function: str
    code: str
    ops: int
    kernels: list[tuple[str, int | None]]
    flops: int
    transcendentals: int
    stages: LineStages | None = None
    #: A line whose ops the optimizer removed: in the stages before, in no kernel.
    optimized_away: bool = False


def source_view(report: FusionReport, explanation: Explained | None) -> list[ReportSourceRow]:
    """The source view's rows in the program's order: :func:`~hloscope.analysis.fusions.
    source_rows`, each with its stages and the text :mod:`hloscope.analysis.explain` gave its
    line, then the lines whose ops were all optimized away."""
    index: dict[str, int] = {}
    for i, k in enumerate(report.kernels):
        index.setdefault(k.name, i)
    out = []
    for row in source_rows(report):
        source = row["source"]
        parsed = parse_where(source) if source != UNKNOWN_SOURCE else None
        file, line, function = parsed if parsed is not None else ("", None, "")
        stages = explanation.of(source) if explanation is not None else None
        out.append(
            ReportSourceRow(
                source=source,
                file=file,
                line=line,
                function=function,
                code=stages.code if stages is not None else "",
                ops=row["ops"],
                kernels=[(name, index.get(name)) for name in row["kernels"]],
                flops=row["flops"],
                transcendentals=row["transcendentals"],
                stages=stages,
            )
        )
    if explanation is not None:
        out.extend(_away_lines(explanation))
    return sorted(out, key=_line_order)


def _away_lines(explanation: Explained) -> list[ReportSourceRow]:
    """The lines whose ops were all optimized away, as rows of the source view."""
    rows = []
    for source, code, counts in explanation.away:
        parsed = parse_where(source)
        file, line, function = parsed if parsed is not None else ("", None, "")
        stages = LineStages(counts=dict(counts), code=code)
        rows.append(ReportSourceRow(source, file, line, function, code, 0, [], 0, 0, stages, True))
    return rows


def _line_order(row: ReportSourceRow) -> tuple[bool, str, int, str]:
    """The program's order: file by file, line by line; lines of no file (TensorFlow layer
    paths) by name after them, the ops with no source last."""
    return (row.source == UNKNOWN_SOURCE, row.file, row.line or 0, row.source)


def explained_from(result: Explanation) -> Explained | None:
    """:class:`Explained` from an :class:`~hloscope.analysis.explain.Explanation` (``None``
    when it has no stage before optimization to link)."""
    stages = [str(s) for s in result.stages if str(s) in STAGE_LABELS]
    if not stages:
        return None
    lines: dict[str, LineStages] = {}
    away: list[tuple[str, str, dict[str, int]]] = []
    for line in result.lines:
        ops = {str(stage): found for stage, found in line.ops.items()}
        counts = {s: len(ops.get(s, ())) for s in stages}
        if line.optimized_away:
            away.append((line.source, line.code, counts))
            continue
        lines[line.source] = LineStages(
            counts=counts,
            samples={s: [op.text for op in ops.get(s, ())[:STAGE_SAMPLES]] for s in stages},
            inferred_kernels=list(line.inferred_kernels),
            code=line.code,
        )
    return Explained(lines, stages, result.frontend, _missing_notes(result.missing), away)


#: What to do when the page has no jaxpr or StableHLO column for a JAX module read as HLO text.
NEEDS_PROGRAM = (
    "HLO text holds neither: make the report of the function itself "
    "(hloscope report SCRIPT.py:FUNCTION) to add them"
)


def _missing_notes(missing: dict[str, str]) -> list[str]:
    """One note per reason a stage column is missing, naming every stage it applies to and
    what to do, once (explain gives the jaxpr and StableHLO the same reason)."""
    by_reason: dict[str, list[str]] = {}
    for stage, why in missing.items():
        if stage in STAGE_LABELS:
            if stage in ("jaxpr", "stablehlo") and why.startswith("not in "):
                why = NEEDS_PROGRAM  # explain's words are for its own command line
            by_reason.setdefault(why, []).append(STAGE_LABELS[stage])
    notes = []
    for why, labels in by_reason.items():
        named = " and ".join(labels)
        column = "columns" if len(labels) > 1 else "column"
        notes.append(f"no {named} {column}: {why}")
    return notes


# ------------------------------------------------------------------------------------------
# The pass timeline
# ------------------------------------------------------------------------------------------


@dataclass(slots=True)
class TimelineStep:
    """One snapshot of the pass pipeline and the module's counts after it (``None``: the
    snapshot could not be read), with how they moved since the snapshot before."""

    step: int
    label: str
    instructions: int | None
    fusions: int | None
    kernels: int | None
    instructions_delta: int
    fusions_delta: int
    kernels_delta: int
    changed: bool
    error: str = ""


@dataclass(slots=True)
class Timeline:
    """The passes in order (:class:`TimelineStep`), and the passes known to have run and
    changed nothing (``unchanged``: ``pass (pipeline)``)."""

    module: str
    steps: list[TimelineStep]
    unchanged: list[str] = field(default_factory=list)


def _known(count: int) -> int | None:
    return None if count < 0 else count


def timeline_from(result: PassTimeline) -> Timeline:
    """:class:`Timeline` from a :class:`~hloscope.analysis.passes.PassTimeline`."""
    steps = [
        TimelineStep(
            step=row.step,
            label=row.label,
            instructions=_known(row.instructions),
            fusions=_known(row.fusions),
            kernels=_known(row.kernels),
            instructions_delta=row.d_instructions,
            fusions_delta=row.d_fusions,
            kernels_delta=row.d_kernels,
            changed=row.changed,
            error=row.error,
        )
        for row in result.rows
    ]
    unchanged = [f"{q.pass_name} ({q.pipeline})" for q in result.unchanged]
    return Timeline(result.module, steps, unchanged)


# ------------------------------------------------------------------------------------------
# Recompiles
# ------------------------------------------------------------------------------------------


@dataclass(slots=True)
class CompileRow:
    """One row of a recompiled function's table, one compile: its number, why it happened
    (cause names), what differed from the compile before, and the signature it compiled for."""

    number: int
    causes: list[str]
    differences: list[str]
    signature: str


@dataclass(slots=True)
class RecompiledFunction:
    """A function that compiled more than once, each compile, and the advice for it."""

    name: str
    defined_at: str
    compiles: int
    seconds: float | None
    events: list[CompileRow]
    advice: list[str]


@dataclass(slots=True)
class Recompiles:
    """The recompiles section: the ledger's summary line, the functions that compiled more
    than once, and the ledger's notes."""

    line: str
    functions: list[RecompiledFunction]
    notes: list[str] = field(default_factory=list)


def recompiles_from(ledger: Ledger, functions: Sequence[FunctionLedger]) -> Recompiles | None:
    """:class:`Recompiles` of a :class:`~hloscope.analysis.recompiles.Ledger` and the
    ``functions`` of it the section is about (chosen one layer down:
    :func:`~hloscope.analysis.report_hints.recompiled_functions`); ``None`` when there are
    none."""
    from ..recompiles_text import summary_line  # rich: loaded only for a page that needs it

    if not functions:
        return None
    views = [_function_view(f) for f in functions]
    return Recompiles(summary_line(ledger), views, list(ledger.notes))


def _function_view(function: FunctionLedger) -> RecompiledFunction:
    return RecompiledFunction(
        name=function.name,
        defined_at=function.defined_at or "",
        compiles=function.compiles,
        seconds=function.compile_seconds,
        events=[
            CompileRow(
                number=e.number,
                causes=[str(c) for c in e.causes],
                differences=[d.text() for d in e.differences],
                signature=e.signature,
            )
            for e in function.events
        ],
        advice=[a.text for a in function.advice],
    )


# ------------------------------------------------------------------------------------------
# Unsupported ops
# ------------------------------------------------------------------------------------------


@dataclass(slots=True)
class CheckFinding:
    """One op a platform cannot compile (or warns about): the fields of ``hloscope check
    --json``'s findings that the page shows."""

    op: str
    node: str
    function: str
    reason: str
    dtype: str | None
    source: str | None
    suggestion: str
    warning: bool | None


@dataclass(slots=True)
class PlatformCheck:
    """The unsupported-ops check for one platform, with the verdict ``hloscope check`` prints
    for it. ``stage`` is what was checked: ``"program"`` (the function lowered by its own
    framework), ``"before"`` (the module XLA was given) or ``"after"`` (the optimized one)."""

    platform: str
    verdict: str
    supported: bool
    stage: str
    findings: list[CheckFinding]
    notes: list[str] = field(default_factory=list)


def platform_check(data: Mapping[str, Any], supported: bool, stage: str) -> PlatformCheck:
    """:class:`PlatformCheck` from the JSON of one platform's check (:meth:`~hloscope.analysis.
    unsupported.findings.CheckReport.to_dict`, the shape ``hloscope check --json`` prints)."""
    findings = [
        CheckFinding(
            op=f["op"],
            node=f["node"],
            function=f["function"],
            reason=f["reason"],
            dtype=f["dtype"],
            source=f["source"],
            suggestion=f["suggestion"],
            warning=f["warning"],
        )
        for f in data["findings"]
    ]
    return PlatformCheck(
        data["platform"], data["verdict"], supported, stage, findings, list(data["notes"])
    )


@dataclass(frozen=True, slots=True)
class MxuRow:
    """One dot or convolution that leaves part of a TPU's matrix unit idle: its product as
    written and padded to fill the unit, the share of the unit it uses, the FLOPs the padding
    wastes (as shown), the kernel it is in and the user's line."""

    op: str
    node: str
    kernel: str
    shape: str
    padded_shape: str
    use: str
    wasted: str
    source: str
    suggestion: str


@dataclass(slots=True)
class MxuSection:
    """The TPU MXU alignment warnings of ``hloscope check --device tpu`` (the same list):
    ``rows`` worst first, at most :data:`MXU_ROWS` of ``count``, against a ``size`` x ``size``
    array. Speed warnings: they never make the check's verdict."""

    size: int
    count: int
    rows: list[MxuRow]


#: The MXU rows the page lists (the worst; ``check --wide`` lists all).
MXU_ROWS = 50


def mxu_section(findings: Sequence[Any], size: int) -> MxuSection | None:
    """:class:`MxuSection` of :func:`hloscope.analysis.mxu.mxu_findings`' list (worst first);
    ``None`` when every product fills the unit."""
    from ...units import format_count

    if not findings:
        return None
    rows = [
        MxuRow(
            op=str(f.op),
            node=f.node,
            kernel=f.kernel or "",
            shape=f.shape,
            padded_shape=f.padded_shape,
            use=f"{f.use:.0%}" if f.use >= 0.1 else f"{f.use:.1%}",
            wasted=format_count(f.wasted_flops),
            source=f.source or "",
            suggestion=f.suggestion,
        )
        for f in findings[:MXU_ROWS]
    ]
    return MxuSection(size, len(findings), rows)


# ------------------------------------------------------------------------------------------
# Bench
# ------------------------------------------------------------------------------------------


@dataclass(slots=True)
class BenchKernelRow:
    """One kernel timed: its time per run (as shown, and in seconds), its share of the
    kernels' time, its achieved rates, what bounds it and how close to that roof, its source
    line."""

    name: str
    median: str
    median_s: float | None
    share: float | None
    bound: str
    source: str
    flops_rate: str = "-"
    bytes_rate: str = "-"
    roof: str = "-"


@dataclass(slots=True)
class BenchSkip:
    """A kernel that was not timed alone, and why."""

    name: str
    reason: str


@dataclass(slots=True)
class BenchSection:
    """The bench section: the program's numbers as ``(label, value)`` rows, the kernels
    slowest first, the kernels that could not be timed alone, and the notes."""

    program: list[tuple[str, str]]
    kernels: list[BenchKernelRow]
    skipped: list[BenchSkip]
    notes: list[str] = field(default_factory=list)
    chart: Markup | None = None  # the roofline chart, a checked <svg> element
    timed: str = ""  # "in program" or "alone"


def bench_section(
    data: Mapping[str, Any], kernel_rows: Sequence[Mapping[str, Any]], notes: Sequence[str]
) -> BenchSection:
    """:class:`BenchSection` from a bench result's JSON (``BenchResult.to_dict()``), its
    kernel rows (``BenchResult.kernel_rows()``, slowest first) and its notes."""
    from ..bench_text import format_rate, format_seconds  # rich: only for a page with bench

    roof = data["roofline"]
    program = [
        ("device", data["device"]),
        ("median time per run", format_seconds(data["median_s"])),
        (
            "10th to 90th percentile",
            f"{format_seconds(data['p10_s'])} to {format_seconds(data['p90_s'])}",
        ),
        ("timed runs", f"{data['runs']:,}"),
        ("FLOP rate", format_rate(data["flops_per_s"], "FLOP/s")),
        ("memory rate", format_rate(data["bytes_per_s"], "B/s")),
        ("peak FLOP rate", format_rate(roof["peak_flops_per_s"], "FLOP/s")),
        ("peak memory rate", format_rate(roof["peak_bytes_per_s"], "B/s")),
        ("bound by", roof["bound"] or "-"),
        ("position under the roof", _percent(roof.get("fraction"))),
    ]
    per_kernel = data.get("per_kernel") or {}
    if per_kernel.get("timed") == "in program" and per_kernel.get("device_time_s") is not None:
        program += [
            ("kernels' time per step", format_seconds(per_kernel["device_time_s"])),
            ("gap (host, launch, idle)", format_seconds(per_kernel["gap_s"])),
        ]
    kernels = [
        BenchKernelRow(
            name=row["name"],
            median=_time_text(row, format_seconds),
            median_s=row.get("time_s"),
            share=row.get("share"),
            bound=row.get("bound") or "",
            source=row.get("source") or "",
            flops_rate=format_rate(row.get("flops_per_s"), "FLOP/s"),
            bytes_rate=format_rate(row.get("bytes_per_s"), "B/s"),
            roof=_percent(row.get("roofline_fraction")),
        )
        for row in kernel_rows
    ]
    skipped = [BenchSkip(s["name"], s["reason"]) for s in data["skipped"]]
    return BenchSection(
        program,
        kernels,
        skipped,
        list(notes),
        chart=_roofline_chart(data, kernel_rows),
        timed=str(per_kernel.get("timed") or ""),
    )


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _time_text(row: Mapping[str, Any], format_seconds: Callable[[float | None], str]) -> str:
    """A kernel's time per run, or ``< bound`` below resolution (never ``0 s``)."""
    if row.get("time_s") is None and row.get("below_s") is not None:
        return "< " + format_seconds(row["below_s"] * (row.get("executions") or 1))
    return format_seconds(row.get("time_s"))


def _roofline_chart(data: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> Markup | None:
    from ..roofline_svg import bench_roofline_svg

    svg = bench_roofline_svg(data, rows)
    return Markup(clean_svg(svg, "hsr-")) if svg is not None else None  # checked: drawing only


# ------------------------------------------------------------------------------------------
# Memory
# ------------------------------------------------------------------------------------------


#: What each memory ``source`` means, in the words the page says it with.
MEMORY_SOURCES: dict[str, str] = {
    "buffer_assignment": "XLA's own buffer assignment and live range, read from the dump's "
    "side files: exact",
    "memory_analysis": "XLA's buffer assignment and live range of the compiled function, "
    "with memory_analysis()'s sizes as the breakdown: exact",
    "simulated": "hloscope's live-range simulation of the module text (no XLA buffer "
    "assignment was there to read): an estimate, within 10% of XLA's peak on real modules",
    "xla_tpu": "XLA:TPU's peak_memory_in_bytes of this compile: what the chip reserves for "
    "the program, its fit figure",
}
#: Buffers live at the peak, and groups by source line or scope, that the page lists.
MEMORY_TOP = 25


@dataclass(slots=True)
class MemoryGroup:
    """The bytes live at the peak that one source line (or one op_name scope) holds, in how
    many buffers."""

    key: str
    bytes: int
    buffers: int


@dataclass(frozen=True, slots=True)
class MemoryFillRow:
    """One named part of what fills the peak: its whole ``label``, the ``short`` one shown
    (files without their folders), its bytes and buffers."""

    label: str
    short: str
    bytes: int
    buffers: int


@dataclass(frozen=True, slots=True)
class MemoryFill:
    """A group of what fills the peak (arguments, outputs, temporaries...) and its rows."""

    title: str
    bytes: int
    rows: list[MemoryFillRow]


@dataclass(slots=True)
class MemorySection:
    """The memory section: the peak and where its numbers come from (``source``, one of
    :data:`MEMORY_SOURCES`' keys, with ``source_text`` saying it in words), the breakdown as
    ``(part, bytes)``, the point of the schedule where the peak is, the largest buffers live
    there (:data:`MEMORY_TOP` of them, ``more`` says how many others), the same bytes grouped
    by source line and by scope, what would free memory (the :data:`MEMORY_TOP` largest,
    ``savings_more`` the others), and the timeline picture (``svg``, a checked ``<svg>``
    element, see :func:`~.escape.clean_svg`)."""

    module: str
    source: str
    source_text: str
    peak_bytes: int
    breakdown: list[tuple[str, int]]
    peak_index: int | None
    peak_instruction: str | None
    peak_kernel: str | None
    buffers: list[LiveBuffer]
    more: int
    by_source: list[MemoryGroup]
    by_scope: list[MemoryGroup]
    savings: list[Saving]
    svg: Markup
    savings_more: int = 0
    notes: list[str] = field(default_factory=list)
    #: What fills the peak: named groups (arguments, outputs, temporaries, XLA:TPU's own
    #: reservation) that sum to it, each with its rows (:mod:`hloscope.analysis.memory.fill`).
    fills: list[MemoryFill] = field(default_factory=list)

    @property
    def simulated(self) -> bool:
        """Whether the numbers are hloscope's estimate rather than XLA's own."""
        return self.source == "simulated"

    def to_dict(self) -> dict[str, Any]:
        """The section's numbers for the page's machine-readable part: what ``hloscope memory
        --json`` says of the source, the peak, its breakdown and its place."""
        return {
            "source": self.source,
            "peak_bytes": self.peak_bytes,
            "breakdown": dict(self.breakdown),
            "peak_at": {
                "index": self.peak_index,
                "instruction": self.peak_instruction,
                "kernel": self.peak_kernel,
            },
        }


def memory_section(result: MemoryResult, top: int = MEMORY_TOP) -> MemorySection:
    """:class:`MemorySection` of a :class:`~hloscope.analysis.memory.MemoryResult` (the very
    result ``hloscope memory`` prints), with its timeline drawn and checked like every other
    picture on the page (names in it are free text from HLO)."""
    from ..memory_svg import render_memory_svg
    from ..memory_text import without_folders

    at = result.peak_at
    return MemorySection(
        module=result.module,
        source=str(result.source),
        source_text=MEMORY_SOURCES.get(str(result.source), str(result.source)),
        peak_bytes=result.peak_bytes,
        breakdown=list(result.breakdown.items()),
        peak_index=at.get("index"),
        peak_instruction=at.get("instruction"),
        peak_kernel=at.get("kernel"),
        buffers=list(result.live_at_peak[:top]),
        more=max(len(result.live_at_peak) - top, 0),
        by_source=_groups(result.by_source(), "source", top),
        by_scope=_groups(result.by_scope(), "scope", top),
        savings=list(result.savings[:top]),
        svg=Markup(clean_svg(render_memory_svg(result), "hsm-")),  # checked: drawing only
        savings_more=max(len(result.savings) - top, 0),
        notes=list(result.notes),
        fills=[
            MemoryFill(
                g.title,
                g.bytes,
                [
                    MemoryFillRow(r.label, without_folders(r.label), r.bytes, r.buffers)
                    for r in g.rows
                ],
            )
            for g in result.fills
        ],
    )


def _groups(rows: Sequence[Mapping[str, Any]], key: str, top: int) -> list[MemoryGroup]:
    return [MemoryGroup(str(r[key]), int(r["bytes"]), int(r["buffers"])) for r in rows[:top]]


# ------------------------------------------------------------------------------------------
# Collectives
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CollectiveRow:
    """One collective as the section lists it; ``estimate`` and ``exposed`` are words
    (``12.3 us``, ``-`` without a device), ``estimate_s`` the number to sort by."""

    name: str
    kind: str
    is_async: bool
    bytes: int
    groups: str
    executions: int
    where: str
    source: str
    op_name: str
    estimate_s: float | None
    estimate: str
    exposed: str


@dataclass(frozen=True, slots=True)
class DeviceStep:
    """The step estimate of the module on one device of the interconnect table, in words
    (seconds) and shares of the step (``compute_share``...)."""

    device: str
    topology: str
    compute_peak: str
    total_s: float
    total: str
    compute: str
    exposed: str
    hidden: str
    compute_share: float
    exposed_share: float


@dataclass(slots=True)
class CollectivesSection:
    """The collectives section: the module's ``devices``, its collectives (``rows``), their
    totals in bytes (``bytes`` per device, ``executed_bytes`` per call), the ``device``
    the rows were priced on (``None``: not priced, the step table still is) and the step
    on every device of the table (``steps``)."""

    devices: int
    rows: list[CollectiveRow]
    bytes: int
    executed_bytes: int
    device: str | None
    estimate: str
    exposed: str
    steps: list[DeviceStep]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The page's machine-readable part: counts, bytes and the step per device."""
        return {
            "devices": self.devices,
            "count": len(self.rows),
            "bytes": self.bytes,
            "executed_bytes": self.executed_bytes,
            "device": self.device,
            "steps": {
                s.device: {
                    "total_s": s.total_s,
                    "compute": s.compute_share,
                    "exposed": s.exposed_share,
                }
                for s in self.steps
            },
        }


def _device_step(step: Mapping[str, Any]) -> DeviceStep:
    from ..collectives_text import format_seconds

    split = step["split"]
    return DeviceStep(
        device=step["device"],
        topology=step.get("topology", ""),
        compute_peak=step["compute_peak"],
        total_s=step["total_s"],
        total=format_seconds(step["total_s"]),
        compute=format_seconds(step["compute_s"]),
        exposed=format_seconds(step["exposed_s"]),
        hidden=format_seconds(step["hidden_s"]),
        compute_share=split["compute"],
        exposed_share=split["exposed"],
    )


def collectives_section(
    result: CollectivesResult, steps: Sequence[Mapping[str, Any]]
) -> CollectivesSection:
    """:class:`CollectivesSection` of a module's collectives (priced when a device priced
    ``result``) and of its step on each device (``steps``: each a step estimate's JSON form,
    :meth:`~hloscope.analysis.step_estimate.StepEstimate.to_dict`, with the device's
    ``topology``)."""
    from ..collectives_text import format_seconds

    rows = [
        CollectiveRow(
            name=c.name,
            kind=c.kind.value,
            is_async=c.is_async,
            bytes=c.bytes,
            groups=f"{c.group_size}x{c.num_groups}",
            executions=c.executions,
            where=c.where,
            source=c.source,
            op_name=c.op_name,
            estimate_s=c.estimate_s,
            estimate=format_seconds(c.estimate_s),
            exposed=format_seconds(c.exposed_s),
        )
        for c in result.collectives
    ]
    return CollectivesSection(
        devices=result.devices,
        rows=rows,
        bytes=result.total_bytes,
        executed_bytes=result.executed_bytes,
        device=result.device["name"] if result.device is not None else None,
        estimate=format_seconds(result.estimate_s),
        exposed=format_seconds(result.exposed_s),
        steps=[_device_step(step) for step in steps],
    )

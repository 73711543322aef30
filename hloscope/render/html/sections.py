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
* :class:`ReportSourceRow` -- per line of the program the kernels its ops ended in (the rows
  are chosen and ordered one layer up, by :mod:`hloscope.reporting`), with what
  :func:`explained_from` adds (:class:`Explained`: per line, its jaxpr equations, StableHLO
  ops and HLO instructions);
* :func:`timeline_from` -- :class:`Timeline`, the pass timeline of per-pass snapshots;
* :func:`recompiles_from` -- :class:`Recompiles`, the functions that compiled more than once;
* :func:`platform_check` -- :class:`PlatformCheck`, what a platform cannot compile;
* the bench, memory and collectives sections have modules of their own
  (:mod:`.bench_section`, :mod:`.memory_section`, :mod:`.collectives_section`).
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from ..graphviz import render_selection
from .escape import clean_svg

if TYPE_CHECKING:  # pragma: no cover
    from ...analysis.explain import Explanation
    from ...analysis.fusions import Kernel
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
    "explained_from",
    "timeline_from",
    "recompiles_from",
    "platform_check",
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
    # A finding's fields are its JSON's keys of the same names.
    shown = [each.name for each in fields(CheckFinding)]
    findings = [CheckFinding(**{name: f[name] for name in shown}) for f in data["findings"]]
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

"""The parts of a report page besides the summary and the kernel table, each built on its own.

Every builder takes what the report is about (the ``origin`` of :func:`.report.build_report`:
the optimized module, and the target or capture it came from) and returns plain data for the
templates, or ``None`` when its section does not apply:

* :func:`heaviest_graphs` -- SVG pictures of the neighbourhoods of the kernels that move the
  most bytes, drawn by :mod:`hloscope.render.graphviz` (selection and layout budget are
  :mod:`hloscope.hlo.graph_selection`'s); without ``dot`` there are none, and a note says why;
* :func:`source_lines` -- per line of the program, the kernels its ops ended in
  (:func:`~hloscope.analysis.fusions.source_rows`), the line's text when the file can be read,
  and what :func:`explained` adds;
* :func:`explained` -- per line, the jaxpr equations, StableHLO ops and HLO instructions, from
  :mod:`hloscope.analysis.explain` when the origin has a stage before optimization (a function
  target is traced again, once and cached, for the line of each jaxpr equation);
* :func:`timeline` -- the pass timeline of per-pass snapshots (:mod:`hloscope.analysis.passes`);
* :func:`recompiles` -- the functions of a dump (or multi-module file) that compiled more
  than once (:mod:`hloscope.analysis.recompiles`);
* :func:`checks` -- ops a platform cannot compile (:mod:`hloscope.analysis.unsupported`);
* :func:`bench` -- the program and each kernel timed (:mod:`hloscope.bench`), only when
  asked for.

The optional analyses are imported inside the builders: a report of an HLO file needs none of
them, and a missing one costs its section, not the page.
"""

from __future__ import annotations

import importlib
import shutil
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from ...analysis.diff import parse_where
from ...analysis.fusions import UNKNOWN_SOURCE, FusionReport, Kernel, source_rows
from ...errors import HloscopeError
from ...hlo.graph import module_graph, neighbourhood, resolve_computation
from ...hlo.graph_selection import HUB_DEGREE, GraphSelection
from ..graphviz import GraphRenderError, render_selection
from .escape import UnsafeSvgError, clean_svg

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

    from ...hlo.model import Module

__all__ = [
    "KernelGraph",
    "SourceLine",
    "LineStages",
    "Explained",
    "TimelineStep",
    "Timeline",
    "heaviest_graphs",
    "source_lines",
    "explained",
    "timeline",
    "recompiles",
    "checks",
    "bench",
    "NO_DOT_NOTE",
    "GRAPH_DEPTH",
    "GRAPH_MAX_NODES",
    "GRAPH_TIMEOUT_S",
]

#: Hops drawn around each heavy kernel, and the most nodes one picture may have.
GRAPH_DEPTH = 2
GRAPH_MAX_NODES = 30
#: Seconds ``dot`` gets per picture before it is drawn more simply.
GRAPH_TIMEOUT_S = 15.0
NO_DOT_NOTE = (
    "graphs left out: Graphviz's 'dot' program is not installed "
    "(apt install graphviz / brew install graphviz)"
)
#: Characters of a source line's text shown in the source view.
CODE_CHARS = 160
#: Platforms the unsupported-ops check runs for.
PLATFORMS = ("cpu", "gpu", "tpu")


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


def heaviest_graphs(
    module: Module,
    report: FusionReport,
    count: int,
    *,
    depth: int = GRAPH_DEPTH,
    max_nodes: int = GRAPH_MAX_NODES,
) -> tuple[list[KernelGraph], list[str]]:
    """Pictures of the ``count`` kernels moving the most bytes, each with what lies within
    ``depth`` hops of it (at most ``max_nodes`` nodes), and notes on what could not be drawn.
    """
    if count <= 0 or not report.kernels:
        return [], []
    if shutil.which("dot") is None:
        return [], [NO_DOT_NOTE]
    index_of = {id(k): i for i, k in enumerate(report.kernels)}
    heaviest = _heaviest(report.kernels, count)
    graphs: list[KernelGraph] = []
    notes: list[str] = []
    built: dict[str, nx.DiGraph] = {}  # one graph per computation, shared by its kernels
    for kernel in heaviest:
        try:
            index = index_of[id(kernel)]
            graphs.append(_kernel_graph(module, kernel, index, depth, max_nodes, built))
        except (GraphRenderError, UnsafeSvgError) as error:
            notes.append(f"graph of {kernel.name} left out: {error.one_line()}")
    return graphs, notes


def _heaviest(kernels: Sequence[Kernel], count: int) -> list[Kernel]:
    """The ``count`` kernels moving the most bytes, one per kind of kernel (signature) first:
    an optimizer's forty alike updates would otherwise fill every picture."""
    ordered = sorted(kernels, key=lambda k: -k.cost.bytes_accessed)
    chosen: list[Kernel] = []
    seen: set[str] = set()
    for k in ordered:
        if len(chosen) < count and k.signature not in seen:
            seen.add(k.signature)
            chosen.append(k)
    for k in ordered:
        if len(chosen) >= count:
            break
        if all(k is not c for c in chosen):
            chosen.append(k)
    return sorted(chosen, key=lambda k: -k.cost.bytes_accessed)


def _kernel_graph(
    module: Module,
    kernel: Kernel,
    index: int,
    depth: int,
    max_nodes: int,
    graphs: dict[str, nx.DiGraph],
) -> KernelGraph:
    """One kernel's picture: what lies within ``depth`` hops of it, not searching through hubs
    (the root tuple of a training step would pull in every other kernel), drawn within the
    layout budget of :func:`~hloscope.render.graphviz.render_selection`."""
    comp = resolve_computation(module, kernel.computation)
    graph = graphs.get(comp.name)
    if graph is None:
        graph = graphs[comp.name] = module_graph(module, comp)
    if kernel.name not in graph:
        raise GraphRenderError(f"{kernel.name} is not in the graph of {comp.name}")
    nodes = neighbourhood(graph, [kernel.name], depth, max_nodes, hub_degree=HUB_DEGREE)
    hops = f"{depth} hop{'s' if depth != 1 else ''}"
    why = f"{kernel.name} and what lies {hops} from it"
    selection = GraphSelection(module, comp, graph, nodes, [kernel.name], why)
    data, plan = render_selection(selection, "svg", GRAPH_TIMEOUT_S)
    return KernelGraph(
        kernel=kernel.name,
        computation=comp.name,
        bytes=kernel.cost.bytes_accessed,
        index=index,
        why=why,
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
class SourceLine:
    """One row of the source view: a line of the program and the kernels its ops ended in.

    ``source`` is ``file:line (function)`` (or a TensorFlow layer path, or ``<unknown>``);
    ``code`` the line's text when its file could be read; ``kernels`` the kernel names with
    their index in the report (for links into the kernel table)."""

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


def source_lines(
    report: FusionReport, explanation: Explained | None, search: Sequence[Path] = ()
) -> list[SourceLine]:
    """The source view's rows: :func:`~hloscope.analysis.fusions.source_rows`, each with its
    line's text (looked up in ``search`` when the path is relative) and its stages."""
    index: dict[str, int] = {}
    for i, k in enumerate(report.kernels):
        index.setdefault(k.name, i)
    reader = _Lines(tuple(search))
    out = []
    for row in source_rows(report):
        source = row["source"]
        parsed = parse_where(source) if source != UNKNOWN_SOURCE else None
        file, line, function = parsed if parsed is not None else ("", None, "")
        stages = explanation.of(source) if explanation is not None else None
        code = reader.line(file, line) if line is not None else ""
        out.append(
            SourceLine(
                source=source,
                file=file,
                line=line,
                function=function,
                code=code or (stages.code if stages is not None else ""),
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


def _away_lines(explanation: Explained) -> list[SourceLine]:
    """The lines whose ops were all optimized away, as rows of the source view."""
    rows = []
    for source, code, counts in explanation.away:
        parsed = parse_where(source)
        file, line, function = parsed if parsed is not None else ("", None, "")
        stages = LineStages(counts=dict(counts), code=code)
        rows.append(SourceLine(source, file, line, function, code, 0, [], 0, 0, stages, True))
    return rows


def _line_order(row: SourceLine) -> tuple[bool, str, int, str]:
    """The program's order: file by file, line by line; lines of no file (TensorFlow layer
    paths) by name after them, the ops with no source last."""
    return (row.source == UNKNOWN_SOURCE, row.file, row.line or 0, row.source)


class _Lines:
    """Lines of source files, each file read once (a few hundred KB at most are kept)."""

    __slots__ = ("_search",)

    def __init__(self, search: tuple[Path, ...]) -> None:
        self._search = search

    def line(self, file: str, number: int) -> str:
        lines = _read_lines(file, self._search)
        if not 1 <= number <= len(lines):
            return ""
        text = lines[number - 1].strip()
        return text if len(text) <= CODE_CHARS else text[: CODE_CHARS - 1] + "\u2026"


_MAX_SOURCE_BYTES = 2 << 20


@lru_cache(maxsize=64)
def _read_lines(file: str, search: tuple[Path, ...]) -> list[str]:
    path = Path(file)
    candidates = [path] if path.is_absolute() else [d / path for d in search]
    for candidate in candidates:
        try:
            if candidate.suffix == ".py" and candidate.stat().st_size <= _MAX_SOURCE_BYTES:
                return candidate.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
    return []


def explained(origin: Any) -> Explained | None:
    """Per source line, the jaxpr equations, StableHLO ops and HLO instructions it made, from
    :func:`hloscope.analysis.explain.explain` (``None`` when that module is absent or the
    origin has no stage before optimization to link).

    An HLO file ``X.after_optimizations.txt`` with its ``X.before_optimizations.txt`` beside
    it (as in ``samples/hlo``) is explained with both."""
    explain = _optional_module("hloscope.analysis.explain")
    if explain is None:
        return None
    target = origin.target
    if target is not None and target.kind in ("function", "capture"):
        result = explain.explain(_sourced_capture(target, origin.capture))
    elif origin.capture is not None:
        result = explain.explain(origin.capture)
    elif target is not None and target.kind == "hlo-file":
        before = _sibling_before(origin.target.path, origin.module.name)
        if before is None:
            return None  # one stage only: nothing to link beyond the kernel table's sources
        result = explain.explain(origin.module, before=before)
    elif target is not None:
        result = explain.explain(target, module=origin.module.name)
    else:
        result = explain.explain(origin.module)
    return _explained_from(result)


def _sourced_capture(target: Any, fallback: Any) -> Any:
    """A function or saved-capture target's capture with the line of each jaxpr equation
    (:func:`~hloscope.capture.jaxpr_lines.capture_for_target` traces a function target again in
    a child process, once, and caches it); the plain capture when that cannot be had."""
    from ...capture.jaxpr_lines import capture_for_target

    try:
        return capture_for_target(target)
    except HloscopeError:
        return fallback


def _sibling_before(path: Path, name: str) -> Module | None:
    """The module before optimization of an ``*after_optimizations.txt`` file, read from the
    ``*before_optimizations.txt`` beside it when that holds a module of the same name."""
    from ...hlo.parser import parse_modules

    if "after_optimizations" not in path.name:
        return None
    sibling = path.with_name(path.name.replace("after_optimizations", "before_optimizations"))
    if not sibling.is_file():
        return None
    return next((m for m in parse_modules(sibling) if m.name == name), None)


def _explained_from(result: Any) -> Explained | None:
    """:class:`Explained` from an :class:`~hloscope.analysis.explain.Explanation`."""
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


def timeline(origin: Any) -> Timeline | None:
    """The pass timeline of the report's module (:func:`hloscope.analysis.passes.
    pass_timeline`): a capture's per-pass snapshots, or those of the dump module of the same
    name. ``None`` when there are none (or :mod:`hloscope.analysis.passes` is absent)."""
    passes = _optional_module("hloscope.analysis.passes")
    if passes is None:
        return None
    subject: Any = None
    if origin.capture is not None:
        subject = origin.capture if origin.capture.passes else None
    elif origin.target is not None and origin.target.kind in ("dump", "script"):
        dumped = [m for m in origin.target.dump().by_name(origin.module.name) if m.passes]
        subject = max(dumped, key=lambda m: len(m.passes)) if dumped else None
    if subject is None:
        return None
    return _timeline_of(passes.pass_timeline(subject))


def _known(count: int) -> int | None:
    return None if count < 0 else count


def _timeline_of(result: Any) -> Timeline:
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
# Recompiles, unsupported ops, bench
# ------------------------------------------------------------------------------------------


def recompiles(origin: Any) -> dict[str, Any] | None:
    """The functions of a dump folder (or a file of several modules) that compiled more than
    once, with each compile's causes and the advice; ``None`` when none did."""
    from ...analysis.recompiles import ledger_of_dump, ledger_of_modules

    target = origin.target
    if target is None:
        return None
    if target.kind in ("dump", "script"):
        ledger = ledger_of_dump(target.dump())
    elif target.kind == "hlo-file":
        modules = target.modules("before")
        if len(modules) < 2:
            return None
        ledger = ledger_of_modules(modules)
    else:
        return None
    functions = [f for f in ledger.functions if not f.internal and f.compiles > 1]
    if not functions:
        return None
    from ..recompiles_text import summary_line

    return {
        "line": summary_line(ledger),
        "functions": [_function_view(f) for f in functions],
        "notes": list(ledger.notes),
    }


def _function_view(function: Any) -> dict[str, Any]:
    return {
        "name": function.name,
        "defined_at": function.defined_at or "",
        "compiles": function.compiles,
        "seconds": function.compile_seconds,
        "events": [
            {
                "number": e.number,
                "causes": [str(c) for c in e.causes],
                "differences": [d.text() for d in e.differences],
                "signature": e.signature,
            }
            for e in function.events
        ],
        "advice": [a.text for a in function.advice],
    }


def checks(origin: Any) -> list[dict[str, Any]]:
    """The unsupported-ops check of the report's module for each platform that finds
    something (an empty list when every platform is clean and unwarned), each with the
    verdict ``hloscope check`` prints for it (:meth:`~hloscope.analysis.unsupported.findings.
    CheckReport.verdict`: one function for both).

    The module XLA was given is checked where the target has it (the optimized one is
    already rewritten for the backend that compiled it), else the optimized one."""
    from ...analysis.unsupported.hlo_check import check_module

    target = origin.target
    if target is not None and target.kind == "function":
        by_framework = _framework_checks(target.spec)
        if by_framework is not None:
            return [c for c in by_framework if c["findings"]]
    module, stage = _module_to_check(origin)
    out = []
    for platform in PLATFORMS:
        report = check_module(module, platform, stage=stage)
        if report.findings:
            verdict = report.verdict()
            out.append(
                {
                    **report.to_dict(),
                    "verdict": verdict.text,
                    "supported": verdict.supported,
                    "stage": stage,
                }
            )
    return out


#: Seconds the framework check of a SCRIPT.py:FUNCTION may take for all platforms together.
CHECK_TIMEOUT_S = 180.0


def _framework_checks(spec: str) -> list[dict[str, Any]] | None:
    """What ``hloscope check SCRIPT.py:FUNCTION --platform P --json`` says for each platform:
    the function lowered by its own framework for the platform, the very check (and verdict)
    the command gives, where the captured HLO only shows how the function was lowered for the
    machine that captured it (its LAPACK kernels say nothing of what GPU or TPU lowerings
    exist). Each platform in a child process of its own, all at once: the script is imported
    there, not in the process writing the page. ``None`` when a check cannot be run (the
    offline check of the captured module stands in)."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": os.environ.get("TF_CPP_MIN_LOG_LEVEL", "2")}
    runs = {
        platform: subprocess.Popen(
            [sys.executable, "-m", "hloscope", "check", spec, "--platform", platform, "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            text=True,
        )
        for platform in PLATFORMS
    }
    out = []
    try:
        for run in runs.values():
            text, _ = run.communicate(timeout=CHECK_TIMEOUT_S)
            if run.returncode not in (0, 3):  # 0 supported, 3 not: anything else is an error
                return None
            data = json.loads(text)
            out.append({**data, "supported": data["clean"], "stage": "program"})
    except (subprocess.TimeoutExpired, ValueError, KeyError):
        return None
    finally:
        for run in runs.values():
            if run.poll() is None:
                run.kill()
                run.wait()
    return out


def _module_to_check(origin: Any) -> tuple[Module, str]:
    """The module before optimizations where the origin has one (a capture's, a dump's, or
    the ``before_optimizations`` file beside an HLO file, as ``hloscope check`` reads it),
    else the optimized module."""
    from ...analysis.unsupported.hlo_check import module_at_stage

    if origin.capture is not None and "hlo" in origin.capture.stages:
        return origin.capture.module("hlo"), "before"
    target = origin.target
    if target is not None and target.kind in ("dump", "script"):
        try:
            return target.choose_module("before", origin.module.name).module, "before"
        except HloscopeError:
            pass
    if target is not None and target.kind == "hlo-file":
        before = module_at_stage(origin.module, target.path, "before")
        if before is not None:
            return before, "before"
    return origin.module, "after"


#: Seconds of timed runs for the program, and for each kernel alone (``--bench``).
BENCH_BUDGET_S = 2.0
BENCH_KERNEL_BUDGET_S = 0.05


def bench(origin: Any) -> dict[str, Any]:
    """The program and each of its kernels timed on the device JAX sees
    (:func:`hloscope.bench.api.bench` with ``per_kernel``), only with ``--bench``: what the
    page's bench section shows (the program's numbers, the kernels slowest first, the kernels
    that could not be timed alone, and the notes)."""
    from ..bench_text import format_rate, format_seconds

    api = _optional_module("hloscope.bench.api")
    if api is None:
        raise HloscopeError("hloscope.bench is not available in this installation")
    if origin.target is not None:
        subject, options = origin.target, {"module": origin.module.name}
    elif origin.capture is not None and "hlo" in origin.capture.stages:
        subject, options = origin.capture.module("hlo"), {}
    else:
        subject, options = origin.module, {}
    result = api.bench(
        subject,
        per_kernel=True,
        budget=BENCH_BUDGET_S,
        kernel_budget=BENCH_KERNEL_BUDGET_S,
        **options,
    )
    data = result.to_dict()
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
    ]
    kernels = [
        {
            "name": row["name"],
            "median": format_seconds(row.get("median_s")),
            "median_s": row.get("median_s"),
            "share": row.get("share"),
            "bound": row.get("bound") or "",
            "source": row.get("source") or "",
        }
        for row in result.kernel_rows()
    ]
    return {
        "program": program,
        "kernels": kernels,
        "skipped": data["skipped"],
        "notes": list(result.notes),
    }


def _optional_module(name: str) -> Any:
    """The module ``name``, or ``None`` when it is not installed (another part of hloscope
    that a report uses when it is there)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is not None and name.startswith(error.name):
            return None
        raise

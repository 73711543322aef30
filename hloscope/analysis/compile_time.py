"""Where a compile's time went: by stage, by HLO pass and pipeline, and by line of your code.

The stages, from what the compile left behind:

* ``trace_s``, ``lower_s``: JAX's own durations for tracing the function to a jaxpr and lowering
  it to StableHLO (``jax.monitoring``, kept by :mod:`hloscope.backends.compile_timing`);
* ``hlo_passes_s``: the span of XLA's HLO passes, from the first pass's start to the last one's
  end, as XLA timestamps them in its module metadata (``--xla_dump_module_metadata``; XLA:TPU
  writes it, XLA:CPU does not);
* ``backend_s``: the rest of JAX's backend compile: what XLA does before and after its HLO
  passes, which for XLA:TPU is mostly code generation and scheduling. XLA does not break it
  down; hloscope names it and never hides it. Where the passes are not timed (XLA:CPU), it is
  the whole backend compile.

``total_s`` is the compile as JAX ran it: from the start of tracing to the end of the backend
compile (JAX's glue between the stages included, as ``other_s``). ``hloscope_s`` is what the
capture spent around it (loading the TPU topology, placing the example arguments, reading the
dump), not part of the compile.

Passes are ranked by time summed over every run of a pass name (``runs``). A pass that is
itself a pipeline (``simplification-1`` inside ``Phase 1 pre-layout assignment passes``) is a
pipeline here, not a pass, so no time counts twice; ``pipeline-start`` markers are no passes.
Where per-pass snapshots were dumped, each pass also says how many instructions its runs added
or removed (``instructions_delta``); XLA's metadata says in how many runs it changed the module
(``changed_runs``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..backends.compile_timing import JaxStage
from ..dump.metadata import ModuleMetadata, PassRun, parse_module_metadata
from ..json_fields import json_fields
from .compile_lines import CompileFinding, LineCount, compile_findings, line_counts
from .errors import CompileTimeError, NoCompileTimes

if TYPE_CHECKING:  # pragma: no cover
    from ..backends.record import Capture
    from ..dump.index import DumpModule
    from ..dump.passes import PassStep
    from ..hlo.model import Module

__all__ = [
    "CompileTimeError",
    "CompileStage",
    "STAGE_PARTS",
    "Stages",
    "PassTime",
    "PipelineTime",
    "CompileTime",
    "compile_time_of_capture",
    "compile_time_of_dump",
    "NoCompileTimes",
    "pass_times",
    "stage_times",
    "pipeline_times",
    "BACKEND_REST",
]

PIPELINE_START = "pipeline-start"
#: What the backend compile does beyond the HLO passes, in the words every output uses.
BACKEND_REST = "backend code generation and scheduling (not broken down by XLA)"


class CompileStage(StrEnum):
    """A compile's stages and its whole, as ``compile-time --json`` names them (the keys of
    ``stages``, and ``total_s``)."""

    TRACE = "trace_s"
    LOWER = "lower_s"
    HLO_PASSES = "hlo_passes_s"
    BACKEND = "backend_s"
    TOTAL = "total_s"


#: The four stages a compile's time is split into: every one but the whole.
STAGE_PARTS = tuple(stage for stage in CompileStage if stage is not CompileStage.TOTAL)


@dataclass(frozen=True, slots=True)
class Stages:
    """Seconds per stage (``None``: not measured for this target)."""

    trace_s: float | None = None
    lower_s: float | None = None
    hlo_passes_s: float | None = None
    backend_s: float | None = None
    #: The backend compile whole (HLO passes plus the rest), as JAX timed it.
    backend_compile_s: float | None = None
    #: Of ``backend_s``: before the first pass (HLO conversion, setup) and after the last.
    before_passes_s: float | None = None
    after_passes_s: float | None = None
    #: JAX's own steps between the stages (total minus the stages).
    other_s: float | None = None

    def to_dict(self) -> dict[str, float | None]:
        return json_fields(
            self,
            "trace_s lower_s hlo_passes_s backend_s backend_compile_s "
            "backend_before_passes_s=before_passes_s backend_after_passes_s=after_passes_s "
            "other_s",
        )

    @property
    def measured(self) -> float:
        """The sum of the four stages that were measured."""
        parts = (self.trace_s, self.lower_s, self.hlo_passes_s, self.backend_s)
        return sum(p for p in parts if p is not None)


@dataclass(slots=True)
class PassTime:
    """One pass name: its time summed over its runs, the pipeline it spent most of it in."""

    name: str
    pipeline: str
    time_s: float
    runs: int
    changed_runs: int = 0
    pipelines: list[str] = field(default_factory=list)
    instructions_delta: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return json_fields(
            self,
            "name pipeline time_s runs changed_runs pipelines instructions_delta",
        )


@dataclass(slots=True)
class PipelineTime:
    """One pipeline: the time of its passes summed over its runs; ``parent`` the pipeline it
    runs inside (``None`` at the top)."""

    name: str
    time_s: float
    runs: int
    parent: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "name time_s runs parent")


@dataclass(slots=True)
class CompileTime:
    """Where one module's compile time went (see the module doc)."""

    module: str
    compiled_for: str | None
    total_s: float | None
    stages: Stages
    passes: list[PassTime]
    pipelines: list[PipelineTime]
    lines: list[LineCount]
    findings: list[CompileFinding]
    instructions_before: int = 0
    instructions_after: int = 0
    hloscope_s: float | None = None
    device: str | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            **json_fields(self, "module compiled_for device total_s"),
            "stages": self.stages.to_dict(),
            "backend_s_is": BACKEND_REST,
            "hloscope_s": self.hloscope_s,
            "passes": [p.to_dict() for p in self.passes],
            "pipelines": [p.to_dict() for p in self.pipelines],
            "instructions_before": self.instructions_before,
            "instructions_after": self.instructions_after,
            "lines": [line.to_dict() for line in self.lines],
            "findings": [f.to_dict() for f in self.findings],
            "notes": self.notes,
        }


# ---- passes -------------------------------------------------------------------------------------


def _nested_pipelines(runs: Sequence[PassRun]) -> dict[int, str]:
    """The runs that are a pipeline running inside another (their id -> the parent pipeline):
    a run whose name is the pipeline of runs that lie within its time."""
    by_pipeline: dict[str, list[PassRun]] = defaultdict(list)
    for run in runs:
        by_pipeline[run.pipeline].append(run)
    nested = {}
    for run in runs:
        inner = by_pipeline.get(run.name, ())
        if any(
            r is not run and run.start_usec <= r.start_usec and r.end_usec <= run.end_usec
            for r in inner
        ):
            nested[run.pass_id] = run.pipeline
    return nested


def _leaf_runs(runs: Sequence[PassRun]) -> list[PassRun]:
    nested = _nested_pipelines(runs)
    return [r for r in runs if r.name != PIPELINE_START and r.pass_id not in nested]


def pass_times(runs: Sequence[PassRun], deltas: Mapping[str, int] | None = None) -> list[PassTime]:
    """Every pass name's time summed over its runs, ranked (most time first; ties by name)."""
    time_by: dict[str, float] = defaultdict(float)
    runs_by: dict[str, int] = defaultdict(int)
    changed_by: dict[str, int] = defaultdict(int)
    where: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for run in _leaf_runs(runs):
        time_by[run.name] += run.seconds
        runs_by[run.name] += 1
        changed_by[run.name] += int(run.changed)
        where[run.name][run.pipeline] += run.seconds
    ranked = sorted(time_by, key=lambda name: (-time_by[name], name))
    return [
        PassTime(
            name=name,
            pipeline=max(where[name].items(), key=lambda kv: (kv[1], kv[0]))[0],
            time_s=time_by[name],
            runs=runs_by[name],
            changed_runs=changed_by[name],
            pipelines=sorted(where[name]),
            instructions_delta=None if deltas is None else deltas.get(name, 0),
        )
        for name in ranked
    ]


def pipeline_times(runs: Sequence[PassRun]) -> list[PipelineTime]:
    """Every pipeline: the time of its own runs (a nested pipeline counts once, as a run of its
    parent), how often it started, and the pipeline it ran inside; ranked."""
    nested = _nested_pipelines(runs)
    parent = {run.name: pipeline for run in runs if (pipeline := nested.get(run.pass_id))}
    time_by: dict[str, float] = defaultdict(float)
    starts: dict[str, int] = defaultdict(int)
    for run in runs:
        if run.name == PIPELINE_START:
            starts[run.pipeline] += 1
        else:
            time_by[run.pipeline] += run.seconds
    names = sorted(set(time_by) | set(starts), key=lambda n: (-time_by.get(n, 0.0), n))
    return [PipelineTime(n, time_by.get(n, 0.0), max(1, starts[n]), parent.get(n)) for n in names]


def _pass_deltas(steps: Sequence[PassStep]) -> dict[str, int] | None:
    """Per pass name, the instructions its runs added (negative: removed), from per-pass
    snapshots; ``None`` when there are none."""
    if not steps:
        return None
    from .passes import pass_timeline

    deltas: dict[str, int] = defaultdict(int)
    timeline = pass_timeline(list(steps))
    for row in timeline.rows:
        if row.ran and row.instructions >= 0:
            deltas[row.ran] += row.d_instructions
    return dict(deltas)


# ---- stages -------------------------------------------------------------------------------------


def _longest(events: Iterable[Mapping[str, Any]], stage: str) -> Mapping[str, Any] | None:
    """The longest event of ``stage``: a nested jit's trace lies inside its caller's."""
    found = [e for e in events if e.get("stage") == stage]
    return max(found, key=lambda e: float(e.get("seconds", 0.0))) if found else None


def stage_times(
    timing: Mapping[str, Any] | None, metadata: Sequence[ModuleMetadata]
) -> tuple[Stages, float | None, float | None]:
    """The stages, the total and hloscope's own time, from JAX's events (``timing``:
    :meth:`~hloscope.backends.compile_timing.CompileClock.to_dict`) and XLA's passes."""
    starts = [m.start_usec for m in metadata if m.start_usec is not None]
    ends = [m.end_usec for m in metadata if m.end_usec is not None]
    passes_s = (max(ends) - min(starts)) / 1e6 if starts and ends else None
    events = list((timing or {}).get("events") or [])
    trace, lower, backend = (_longest(events, s) for s in JaxStage)
    trace_s = float(trace["seconds"]) if trace else None
    lower_s = float(lower["seconds"]) if lower else None
    if backend is None:
        return Stages(trace_s, lower_s, passes_s), None, None
    backend_compile_s = float(backend["seconds"])
    backend_end = float(backend["ended_at"])
    backend_start = backend_end - backend_compile_s
    before = after = None
    rest = backend_compile_s
    if passes_s is not None:
        rest = backend_compile_s - passes_s
        before = min(starts) / 1e6 - backend_start
        after = backend_end - max(ends) / 1e6
        if before < 0 or after < 0:  # clocks that disagree: no split rather than a wrong one
            before = after = None
    first = min(
        (float(e["ended_at"]) - float(e["seconds"]) for e in (trace, lower, backend) if e),
        default=backend_start,
    )
    total = backend_end - first
    stages = Stages(trace_s, lower_s, passes_s, rest, backend_compile_s, before, after)
    other = total - stages.measured
    stages = Stages(
        trace_s, lower_s, passes_s, rest, backend_compile_s, before, after, max(0.0, other)
    )
    wall = (timing or {}).get("wall_s")
    hloscope_s = max(0.0, float(wall) - total) if isinstance(wall, (int, float)) else None
    return stages, total, hloscope_s


# ---- building -----------------------------------------------------------------------------------


def _metadata(texts: Iterable[tuple[str, str]]) -> list[ModuleMetadata]:
    return [parse_module_metadata(text, path) for path, text in texts]


def _build(
    name: str,
    compiled_for: str | None,
    timing: Mapping[str, Any] | None,
    metadata: list[ModuleMetadata],
    before: Module | None,
    after: Module | None,
    steps: Sequence[PassStep],
    sources: Mapping[str, str],
    notes: list[str],
) -> CompileTime:
    stages, total, hloscope_s = stage_times(timing, metadata)
    if stages.backend_compile_s is not None and stages.trace_s is None:
        notes.append(
            "JAX reported no tracing: it reused a trace of this function made earlier in the "
            "same process"
        )
    runs = [run for m in metadata for run in m.passes]
    if not runs:
        notes.append(
            "no HLO pass times: XLA wrote no module metadata for this compile "
            "(XLA:TPU writes it with --xla_dump_module_metadata=true; XLA:CPU writes none), "
            "so backend_s is the whole backend compile"
        )
    deltas = _pass_deltas(steps) if runs else None
    if runs and deltas is None:
        notes.append(
            "how many instructions each pass added or removed needs per-pass snapshots "
            "(--xla_dump_hlo_pass_re=.*); XLA's metadata says only whether a run changed the module"
        )
    lines = line_counts(before, after)
    findings = compile_findings(before, after, sources)
    return CompileTime(
        module=name,
        compiled_for=compiled_for,
        total_s=total if total is not None else _sum_or_none(stages),
        stages=stages,
        passes=pass_times(runs, deltas),
        pipelines=pipeline_times(runs),
        lines=lines,
        findings=findings,
        instructions_before=_count(before),
        instructions_after=_count(after),
        hloscope_s=hloscope_s,
        notes=notes,
    )


def _sum_or_none(stages: Stages) -> float | None:
    parts = [stages.trace_s, stages.lower_s, stages.hlo_passes_s, stages.backend_s]
    known = [p for p in parts if p is not None]
    return sum(known) if len(known) == len(parts) else None


def _count(module: Module | None) -> int:
    return sum(map(len, module.computations)) if module is not None else 0


def compile_time_of_capture(capture: Capture) -> CompileTime:
    """The compile time of a capture (``hloscope.capture``, a ``SCRIPT.py:FUNCTION``)."""
    notes: list[str] = []
    text = capture.reports.get("module_metadata")
    metadata = _metadata([(f"<capture {capture.name}: module metadata>", text)] if text else [])
    if capture.frontend != "jax":
        notes.append(f"{capture.frontend} reports no stage times; XLA's pass times only")
    elif capture.compile_time is None:
        notes.append(
            "this capture kept no stage times (made before hloscope measured them: "
            "--refresh captures it again)"
        )
    before = capture.module("hlo") if "hlo" in capture.stages else None
    after = capture.module("optimized_hlo") if "optimized_hlo" in capture.stages else None
    result = _build(
        capture.name,
        capture.compiled_for,
        capture.compile_time,
        metadata,
        before,
        after,
        capture.passes,
        capture.source_files,
        notes,
    )
    result.device = capture.device
    return result


def compile_time_of_dump(
    module: DumpModule,
    others: Sequence[DumpModule] = (),
    timing: Mapping[str, Any] | None = None,
) -> CompileTime:
    """The compile time of one module of a dump folder: XLA's pass times only (a dump holds no
    trace, lowering or backend durations). ``others``: the dump's modules of the same name,
    where XLA:TPU may have put this compile's metadata and HLO before optimizations (it may
    number the optimized module anew). ``timing``: JAX's durations of this module's compile
    (:func:`script_compile_timing`), when the script ran under ``hloscope capture``."""
    family = [module, *(m for m in others if m is not module)]
    files = next((m.companions("metadata") for m in family if m.companions("metadata")), [])
    metadata = _metadata((f.location, f.read_text()) for f in files)
    before = next((m.before() for m in family if m.before_file is not None), None)
    after = next((m.after() for m in family if m.after_file is not None), None)
    shown = after if after is not None else before
    sources = shown.source_files if shown is not None else {}
    notes = []
    if timing is None:
        notes.append(
            "a dump holds XLA's pass times only; `hloscope compile-time SCRIPT.py:FUNCTION` "
            "(or a script run by hloscope) measures tracing, lowering and the backend compile too"
        )
    return _build(
        module.name or f"module_{module.id:04d}",
        None,
        timing,
        metadata,
        before,
        after,
        next((m.passes for m in family if m.passes), []),
        sources or {},
        notes,
    )

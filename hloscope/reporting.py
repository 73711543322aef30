"""Gathering a report: everything ``hloscope report`` shows about one module, from what names it.

:func:`build_report` takes a TARGET string or path, a :class:`~hloscope.capture.target.Target`,
a :class:`~hloscope.capture.inprocess.Capture` or a parsed :class:`~hloscope.hlo.model.Module`,
runs the analyses that apply to it, and returns the typed
:class:`~hloscope.render.html.report.Report` the page renders:

* the summary and kernel table (:func:`~hloscope.analysis.summary.summarize`,
  :func:`~hloscope.analysis.fusions.fusion_report`), graphs of the heaviest kernels;
* the source view, with the text of each line read from the program's files (looked for in
  the working folder and beside the target) and what :mod:`hloscope.analysis.explain` links
  to it (a function target is traced again, once and cached, for the line of each jaxpr
  equation);
* the memory section: the peak, what is live there and the timeline
  (:func:`~hloscope.analysis.memory_diff.memory_of_side`: XLA's side files of a dump, a
  capture's own buffer assignment, else hloscope's simulation of the module, said so);
* the collectives of an SPMD module (:mod:`hloscope.analysis.collectives`), and the step
  estimate on every device of the registry with interconnect figures
  (:mod:`hloscope.analysis.step_estimate`);
* the pass timeline of a capture or dump with per-pass snapshots
  (:mod:`hloscope.analysis.passes`), the recompiles of a dump
  (:mod:`hloscope.analysis.recompiles`), the unsupported ops of each platform
  (:mod:`hloscope.analysis.unsupported`, or ``hloscope check`` of a function in a child
  process), and bench results when asked for (:mod:`hloscope.bench`).

This is the one place that looks at what kind of target a report is about, reads files and
runs things; :mod:`hloscope.render.html` only turns the data into a page. It sits in the top
layer, beside the command line and the public API, because it calls into every layer below.

An optional section that cannot be made (a failing analysis, a missing part of hloscope)
leaves a note saying why instead of failing the report; ``HLOSCOPE_DEBUG=1`` lets the error
through::

    report = hloscope.build_report("samples/hlo/transformer_train.after_optimizations.txt")
    report.write("report.html")
"""

from __future__ import annotations

import dataclasses
import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

from .analysis.fusions import fusion_report
from .analysis.mxu import DEFAULT_MXU, mxu_findings
from .analysis.summary import summarize
from .capture.target import TargetKind
from .devices import Platform
from .errors import HloscopeError
from .hlo.model import Module
from .render.html import sections
from .render.html.failed_report import FailedReport
from .render.html.hints import hints
from .render.html.report import Report, table_rows
from .render.html.sections import (
    BenchSection,
    CollectivesSection,
    Explained,
    MemorySection,
    MxuSection,
    PlatformCheck,
    Recompiles,
    ReportSourceRow,
    Timeline,
)

if TYPE_CHECKING:  # pragma: no cover
    from .analysis.recompiles import Ledger
    from .capture.errors import CaptureError
    from .capture.inprocess import Capture
    from .capture.jaxpr_lines import SourcedCapture
    from .capture.target import Target
    from .devices import DeviceSpec
    from .dump.index import DumpModule
    from .render.html.compile_time_section import CompileTimeSection
    from .render.html.profile_section import ProfileSection

__all__ = [
    "Report",
    "FailedReport",
    "build_report",
    "build_failed_report",
    "failed_compile",
    "write_report",
    "capture_html",
    "DEFAULT_GRAPHS",
    "CAPTURE_GRAPHS",
    "PLATFORMS",
]

#: How many of the heaviest kernels get a picture of their neighbourhood.
DEFAULT_GRAPHS = 4
#: Graphs a capture's notebook view draws (each costs a ``dot`` run).
CAPTURE_GRAPHS = 2
#: Platforms the unsupported-ops check runs for: every one there is.
PLATFORMS: tuple[str, ...] = tuple(p.value for p in Platform)
#: Seconds the framework check of a SCRIPT.py:FUNCTION may take for all platforms together.
CHECK_TIMEOUT_S = 180.0
#: Seconds of timed runs for the program, and for each kernel alone (``--bench``).
BENCH_BUDGET_S = 2.0
BENCH_KERNEL_BUDGET_S = 0.05
#: Characters of a source line's text shown in the source view.
CODE_CHARS = 160
DEBUG_ENV = "HLOSCOPE_DEBUG"

T = TypeVar("T")


# ------------------------------------------------------------------------------------------
# What a report is about
# ------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Origin:
    """What a report is about: a label, the optimized module, and where more can be read
    (the resolved target or the capture it came from, either may be absent)."""

    label: str
    module: Module
    target: Target | None = None
    capture: Capture | None = None
    note: str | None = None


def _origin(value: object, module: str | None, refresh: bool) -> _Origin:
    # Imported here: the capture machinery is only needed once a report is asked for.
    from .capture.inprocess import Capture
    from .capture.target import Target

    if isinstance(value, Module):
        return _Origin(value.name, value)
    if isinstance(value, Capture):
        return _Origin(value.name, value.module("optimized_hlo"), capture=value)
    if isinstance(value, (str, os.PathLike, Target)):
        target = Target.resolve(value, refresh=refresh)
        choice = target.choose_module("after", module)
        capture = None
        if target.kind in (TargetKind.FUNCTION, TargetKind.CAPTURE):
            capture = target.capture()
        return _Origin(target.spec, choice.module, target, capture, choice.note)
    raise TypeError(
        "build_report() takes a TARGET string or path, a Target, a Capture or a Module, "
        f"not a {type(value).__name__}"
    )


def _compiled_note(capture: Capture | None) -> str | None:
    """What compiled a function compiled for a ``--device``: the page says it first."""
    if capture is None or capture.device is None:
        return None
    if capture.compiled_for is None:
        return capture.estimate_note
    by = "XLA:TPU" if capture.backend == "xla-tpu" else "XLA"
    return f"compiled for {capture.compiled_for} ({capture.device}) by {by}"


# ------------------------------------------------------------------------------------------
# Building
# ------------------------------------------------------------------------------------------


def build_report(
    value: str | os.PathLike[str] | Target | Capture | Module,
    *,
    module: str | None = None,
    bench: bool = False,
    graphs: int = DEFAULT_GRAPHS,
    refresh: bool = False,
    device: str | DeviceSpec | None = None,
    profile: str | os.PathLike[str] | None = None,
) -> Report:
    """The :class:`~hloscope.render.html.report.Report` of ``value``: a TARGET string or
    path, a :class:`~hloscope.capture.target.Target`, a
    :class:`~hloscope.capture.inprocess.Capture` or a parsed :class:`~hloscope.hlo.model.Module`.

    ``module`` picks the module of a target with several (as ``--module`` does); ``graphs``
    is how many of the heaviest kernels get a picture (0: none); ``bench`` adds measured
    times (:mod:`hloscope.bench` compiles and runs the program and each kernel alone on the
    device JAX sees: it needs jax and takes seconds to minutes); ``refresh`` captures a script
    target again; ``device`` (``tpu-v5e``, ``h100``...) prices each collective on that
    device's interconnect (the step on every device is shown either way); ``profile`` (a
    ``jax.profiler.trace`` folder or file of this module) adds its op profile.
    """
    origin = _origin(value, module, refresh)
    report = fusion_report(origin.module)
    rows = table_rows(report)
    out = Report(
        target=origin.label,
        module=origin.module.name,
        summary=summarize(origin.module),
        fusions=report,
        rows=rows,
        sources=[],
        graphs=[],
        bench_asked=bench,
    )
    if origin.note:
        out.notes.append(origin.note)
    compiled = _compiled_note(origin.capture)
    if compiled:
        out.notes.insert(0, compiled)
    if len(rows) < len(report.kernels):
        out.notes.append(
            f"the kernel table lists the {len(rows):,} kernels moving the most bytes of "
            f"{len(report.kernels):,}"
        )
    out.graphs, notes = sections.heaviest_graphs(origin.module, report, graphs)
    out.notes.extend(notes)
    out.explanation = _optional(out, "source view details", lambda: explained(origin))
    out.sources = source_rows(origin, out)
    out.memory = _optional(out, "memory", lambda: memory(origin))
    out.collectives = _optional(out, "collectives", lambda: collectives(origin, device))
    out.compile_time = _optional(out, "compile time", lambda: compile_time_of(origin))
    out.passes = _optional(out, "pass timeline", lambda: timeline(origin))
    out.recompiles = _optional(out, "recompiles", lambda: recompiles(origin))
    out.checks = _optional(out, "unsupported ops", lambda: checks(origin)) or []
    out.mxu = _optional(out, "TPU MXU alignment", lambda: mxu(origin))
    out.hints = hints(report, origin.module, out.recompiles)
    if profile is not None:
        out.profile = _optional(out, "profile", lambda: profile_of(origin, profile, device))
    if bench:
        out.bench = _optional(out, "bench", lambda: bench_of(origin))
    return out


def build_failed_report(spec: str, error: CaptureError) -> FailedReport:
    """The page of a ``SCRIPT.py:FUNCTION`` whose compile failed with ``error`` (see
    :mod:`hloscope.render.html.failed_report`): ``hloscope check`` of the function for each
    platform (the platforms that find something), the compile error whole (the capture's
    manifest keeps it, else the one line ``error`` says), the function's source read from the
    script without importing it, and the framework versions that ran."""
    from .capture.target import is_function_spec

    manifest = _failed_manifest(error)
    out = FailedReport(
        target=spec,
        error=manifest.get("error_text") or error.one_line(),
        versions={k: str(v) for k, v in (manifest.get("versions") or {}).items() if v},
    )
    found = _framework_checks(spec)
    if found is None:
        out.notes.append("unsupported ops left out: hloscope check of the function did not run")
    else:
        out.checks = [c for c in found if c.findings]
    if is_function_spec(spec):
        script, function = spec.rsplit(":", 1)
        out.source_file = script
        out.source = _function_source(Path(script), function)
    if error.output_dir:
        out.notes.append(f"the capture's files (stderr.txt, manifest.json): {error.output_dir}")
    return out


def failed_compile(error: CaptureError) -> bool:
    """Whether ``error`` is a function's capture that failed while its framework lowered or
    compiled it (what :func:`build_failed_report` writes a page of), not before: the script
    could not be imported, its example arguments are missing, a framework is absent."""
    manifest = _failed_manifest(error)
    return bool(manifest.get("compiling")) and not manifest.get("timed_out")


def _failed_manifest(error: CaptureError) -> dict[str, Any]:
    """The manifest of the failed capture ``error`` names (empty when there is none)."""
    import json

    if not error.output_dir:
        return {}
    try:
        data = json.loads((Path(error.output_dir) / "manifest.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _function_source(script: Path, function: str) -> list[tuple[int, str]]:
    """The lines of ``def function`` in ``script``, its decorators included, numbered as in
    the file (read with :mod:`ast`, never imported); empty when it cannot be found."""
    import ast

    try:
        text = script.read_text(encoding="utf-8", errors="replace")
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return []
    lines = text.splitlines()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            last = node.end_lineno or node.lineno
            return [(n, lines[n - 1]) for n in range(first, last + 1)]
    return []


def profile_of(
    origin: _Origin, trace: str | os.PathLike[str], device: str | DeviceSpec | None = None
) -> ProfileSection:
    """The op profile of ``trace`` joined to the report's module (a trace of another module is
    refused, and the page says so in its notes)."""
    from .analysis.op_profile import op_profile, read_trace
    from .devices import parse_device
    from .render.html.profile_section import profile_section

    chip = parse_device(device).device if device is not None else None
    return profile_section(op_profile(read_trace(trace), origin.module, device=chip))


def write_report(
    value: str | os.PathLike[str] | Target | Capture | Module,
    path: str | os.PathLike[str],
    **options: Any,
) -> Report:
    """:func:`build_report` with ``options``, written to ``path``; returns the report."""
    report = build_report(value, **options)
    report.write(path)
    return report


def capture_html(capture: Capture) -> str:
    """A capture in a Jupyter cell: the report of its optimized module (pass timeline
    included), with :data:`CAPTURE_GRAPHS` graphs."""
    return build_report(capture, graphs=CAPTURE_GRAPHS)._repr_html_()


def _optional(report: Report, what: str, build: Callable[[], T]) -> T | None:
    """``build()``, or ``None`` with a note on the report when it fails: an optional section
    that cannot be made must not cost the user the rest of the page (``HLOSCOPE_DEBUG=1``
    lets the error through)."""
    try:
        return build()
    except Exception as error:  # noqa: BLE001 - reported as a note, see above
        if os.environ.get(DEBUG_ENV):
            raise
        if isinstance(error, HloscopeError):
            text = error.one_line()
        else:
            first = str(error).splitlines()[0] if str(error) else ""
            text = f"{type(error).__name__}: {first}" if first else type(error).__name__
        report.notes.append(f"{what} left out: {text}")
        return None


def _optional_module(name: str) -> ModuleType | None:
    """The module ``name``, or ``None`` when it is not installed (another part of hloscope
    that a report uses when it is there)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is not None and name.startswith(error.name):
            return None
        raise


# ------------------------------------------------------------------------------------------
# The source view
# ------------------------------------------------------------------------------------------


def source_rows(origin: _Origin, report: Report) -> list[ReportSourceRow]:
    """The source view's rows (:func:`~hloscope.render.html.sections.source_view`), each
    line's text read from its file where the file can be found (else what explain gave)."""
    lines = _Lines(tuple(_search_dirs(origin)))
    out = []
    for row in sections.source_view(report.fusions, report.explanation):
        text = lines.line(row.file, row.line) if row.line is not None else ""
        if text and not row.optimized_away:  # a removed line keeps the text explain gave it
            row = dataclasses.replace(row, code=text)
        out.append(row)
    return out


def _search_dirs(origin: _Origin) -> list[Path]:
    """Where the source files named in metadata may be found: the working folder, then the
    target's folder and the folders above it (metadata paths are often relative)."""
    dirs = [Path.cwd()]
    target = origin.target
    if target is not None and (target.script is not None or not target.is_remote):
        base = target.script if target.script is not None else target.path
        anchor = base.resolve().parent
        dirs.extend([anchor, *list(anchor.parents)[:3]])
    return list(dict.fromkeys(dirs))


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


def explained(origin: _Origin) -> Explained | None:
    """Per source line, the jaxpr equations, StableHLO ops and HLO instructions it made, from
    :func:`hloscope.analysis.explain.explain` (``None`` when that module is absent or the
    origin has no stage before optimization to link).

    An HLO file ``X.after_optimizations.txt`` with its ``X.before_optimizations.txt`` beside
    it (as in ``samples/hlo``) is explained with both."""
    explain = _optional_module("hloscope.analysis.explain")
    if explain is None:
        return None
    target = origin.target
    if target is not None and target.kind in (TargetKind.FUNCTION, TargetKind.CAPTURE):
        result = explain.explain(_sourced_capture(target, origin.capture))
    elif origin.capture is not None:
        result = explain.explain(origin.capture)
    elif target is not None and target.kind == TargetKind.HLO_FILE:
        before = _sibling_before(target.location, origin.module.name)
        if before is None:
            return None  # one stage only: nothing to link beyond the kernel table's sources
        result = explain.explain(origin.module, before=before)
    elif target is not None:
        result = explain.explain(target, module=origin.module.name)
    else:
        result = explain.explain(origin.module)
    return sections.explained_from(result)


def _sourced_capture(target: Target, fallback: Capture | None) -> SourcedCapture | Capture | None:
    """A function or saved-capture target's capture with the line of each jaxpr equation
    (:func:`~hloscope.capture.jaxpr_lines.capture_for_target` traces a function target again in
    a child process, once, and caches it); the plain capture when that cannot be had."""
    from .capture.jaxpr_lines import capture_for_target

    try:
        return capture_for_target(target)
    except HloscopeError:
        return fallback


def _sibling_before(location: str, name: str) -> Module | None:
    """The module before optimization of an ``*after_optimizations.txt`` file (a local path
    or a URL), read from the ``*before_optimizations.txt`` beside it when that holds a module
    of the same name."""
    from .dump import storage
    from .hlo.parser import parse_modules

    if not storage.is_url(location):
        path = Path(location)
        if "after_optimizations" not in path.name:
            return None
        sibling = path.with_name(path.name.replace("after_optimizations", "before_optimizations"))
        if not sibling.is_file():
            return None
        return next((m for m in parse_modules(sibling) if m.name == name), None)
    base = storage.basename(location)
    if "after_optimizations" not in base:
        return None
    beside = storage.join(
        storage.parent(location), base.replace("after_optimizations", "before_optimizations")
    )
    if not storage.exists(beside):
        return None
    text = storage.read_bytes(beside)
    return next((m for m in parse_modules(text, path=beside) if m.name == name), None)


# ------------------------------------------------------------------------------------------
# Memory
# ------------------------------------------------------------------------------------------


def memory(origin: _Origin) -> MemorySection:
    """The memory section of the report's module: the same result ``hloscope memory`` gives
    for the target (XLA's buffer assignment and live range from a dump's side files or a
    capture, else the simulation of the module text, which the section says it is)."""
    from .analysis.memory import memory_of, memory_of_capture
    from .analysis.memory_diff import memory_of_side

    if origin.capture is not None:
        result = memory_of_capture(origin.capture)
    elif origin.target is not None:
        result = memory_of_side(origin.module, origin.target)
    else:
        result = memory_of(origin.module)
    return sections.memory_section(result)


# ------------------------------------------------------------------------------------------
# The pass timeline, recompiles
# ------------------------------------------------------------------------------------------


def collectives(
    origin: _Origin, device: str | DeviceSpec | None = None
) -> CollectivesSection | None:
    """The collectives section, ``None`` for a module without collectives: the collectives
    priced on ``device`` when given, and the step on every device of the registry with
    interconnect figures (the module's own groups on each: which chips would run this
    sharding best)."""
    from .analysis.collectives import interconnect_devices
    from .analysis.step_estimate import communication_of, has_collectives

    module = origin.module
    if not has_collectives(module):
        return None
    shown = communication_of(module, device)
    steps = []
    chosen = shown.result.device["name"] if shown.result.device is not None else None
    for row in interconnect_devices():
        topology = row.interconnect.topology if row.interconnect is not None else ""
        step = (shown if row.name == chosen else communication_of(module, row)).step
        if step is not None:
            steps.append({**step.to_dict(), "topology": topology})
    return sections.collectives_section(shown.result, steps)


def timeline(origin: _Origin) -> Timeline | None:
    """The pass timeline of the report's module (:func:`hloscope.analysis.passes.
    pass_timeline`): a capture's per-pass snapshots, or those of the dump module of the same
    name. ``None`` when there are none (or :mod:`hloscope.analysis.passes` is absent)."""
    passes = _optional_module("hloscope.analysis.passes")
    if passes is None:
        return None
    subject: Capture | DumpModule | None = None
    target = origin.target
    if origin.capture is not None:
        subject = origin.capture if origin.capture.passes else None
    elif target is not None and target.kind in (TargetKind.DUMP, TargetKind.SCRIPT):
        dumped = [m for m in target.dump().by_name(origin.module.name) if m.passes]
        subject = max(dumped, key=lambda m: len(m.passes)) if dumped else None
    if subject is None:
        return None
    return sections.timeline_from(passes.pass_timeline(subject))


def compile_time_of(origin: _Origin) -> CompileTimeSection | None:
    """Where the module's compile time went (:mod:`hloscope.analysis.compile_time`): of a
    capture that kept its times, or a dump with XLA's pass times; ``None`` when nothing of
    the compile was timed."""
    from .analysis.compile_time import compile_time_of_capture
    from .drivers.compile_time import compile_time_of_target
    from .render.html.compile_time_section import compile_time_section

    capture = origin.capture
    if capture is not None:
        if capture.compile_time is None and "module_metadata" not in capture.reports:
            return None  # a capture made before hloscope kept the times
        return compile_time_section(compile_time_of_capture(capture))
    target = origin.target
    if target is None or target.kind not in (TargetKind.DUMP, TargetKind.SCRIPT):
        return None
    timed = target.output_dir is not None and (target.output_dir / "compile_time.json").is_file()
    if not timed and not any(m.companions("metadata") for m in target.dump().modules):
        return None  # neither JAX's durations nor XLA's pass times
    return compile_time_section(compile_time_of_target(target, origin.module.name))


def recompiles(origin: _Origin) -> Recompiles | None:
    """The functions of a dump folder (or a file of several modules) that compiled more than
    once, with each compile's causes and the advice; ``None`` when none did."""
    from .analysis.recompiles import ledger_of_dump, ledger_of_modules

    target = origin.target
    if target is None:
        return None
    ledger: Ledger
    if target.kind in (TargetKind.DUMP, TargetKind.SCRIPT):
        ledger = ledger_of_dump(target.dump())
    elif target.kind == TargetKind.HLO_FILE:
        modules = target.modules("before")
        if len(modules) < 2:
            return None
        ledger = ledger_of_modules(modules)
    else:
        return None
    return sections.recompiles_from(ledger)


# ------------------------------------------------------------------------------------------
# Unsupported ops
# ------------------------------------------------------------------------------------------


def checks(origin: _Origin) -> list[PlatformCheck]:
    """The unsupported-ops check of the report's module for each platform that finds
    something (an empty list when every platform is clean and unwarned), each with the
    verdict ``hloscope check`` prints for it (:meth:`~hloscope.analysis.unsupported.findings.
    CheckReport.verdict`: one function for both).

    The module XLA was given is checked where the target has it (the optimized one is
    already rewritten for the backend that compiled it), else the optimized one."""
    from .analysis.unsupported.hlo_check import check_module

    target = origin.target
    if target is not None and target.kind == TargetKind.FUNCTION:
        by_framework = _framework_checks(target.spec)
        if by_framework is not None:
            return [c for c in by_framework if c.findings]
    module, stage = _module_to_check(origin)
    out = []
    for platform in PLATFORMS:
        report = check_module(module, platform, stage=stage)
        if report.findings:
            verdict = report.verdict()
            data = {**report.to_dict(), "verdict": verdict.text}
            out.append(sections.platform_check(data, verdict.supported, stage))
    return out


def mxu(origin: _Origin, size: int = DEFAULT_MXU) -> MxuSection | None:
    """The TPU MXU alignment warnings ``hloscope check --device tpu`` gives, of the same
    module the checks read (before optimization where the target has it: the products as
    the program wrote them, not as a CPU or GPU compile tiled them)."""
    module, _stage = _module_to_check(origin)
    return sections.mxu_section(mxu_findings(module, size), size)


def _framework_checks(spec: str) -> list[PlatformCheck] | None:
    """What ``hloscope check SCRIPT.py:FUNCTION --device P --json`` says for each platform:
    the function lowered by its own framework for the platform, the very check (and verdict)
    the command gives, where the captured HLO only shows how the function was lowered for the
    machine that captured it (its LAPACK kernels say nothing of what GPU or TPU lowerings
    exist). Each platform in a child process of its own, all at once: the script is imported
    there, not in the process writing the page. ``None`` when a check cannot be run (the
    offline check of the captured module stands in)."""
    import json
    import subprocess
    import sys

    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": os.environ.get("TF_CPP_MIN_LOG_LEVEL", "2")}
    runs = {
        platform: subprocess.Popen(
            [sys.executable, "-m", "hloscope", "check", spec, "--device", platform, "--json"],
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
            out.append(sections.platform_check(data, data["clean"], "program"))
    except (subprocess.TimeoutExpired, ValueError, KeyError):
        return None
    finally:
        for run in runs.values():
            if run.poll() is None:
                run.kill()
                run.wait()
    return out


def _module_to_check(origin: _Origin) -> tuple[Module, str]:
    """The module before optimizations where the origin has one (a capture's, a dump's, or
    the ``before_optimizations`` file beside an HLO file, as ``hloscope check`` reads it),
    else the optimized module."""
    from .analysis.unsupported.hlo_check import module_at_stage

    if origin.capture is not None and "hlo" in origin.capture.stages:
        return origin.capture.module("hlo"), "before"
    target = origin.target
    if target is not None and target.kind in (TargetKind.DUMP, TargetKind.SCRIPT):
        try:
            return target.choose_module("before", origin.module.name).module, "before"
        except HloscopeError:
            pass
    if target is not None and target.kind == TargetKind.HLO_FILE and target.is_remote:
        before = _sibling_before(target.location, origin.module.name)
        if before is not None:
            return before, "before"
    elif target is not None and target.kind == TargetKind.HLO_FILE:
        before = module_at_stage(origin.module, target.path, "before")
        if before is not None:
            return before, "before"
    return origin.module, "after"


# ------------------------------------------------------------------------------------------
# Bench
# ------------------------------------------------------------------------------------------


def bench_of(origin: _Origin) -> BenchSection:
    """The program and each of its kernels timed on the device JAX sees
    (:func:`hloscope.bench.api.bench` with ``per_kernel``), only with ``--bench``."""
    api = _optional_module("hloscope.bench.api")
    if api is None:
        raise HloscopeError("hloscope.bench is not available in this installation")
    subject: Target | Module
    options: dict[str, str] = {}
    if origin.target is not None:
        subject, options = origin.target, {"module": origin.module.name}
    elif origin.capture is not None and "hlo" in origin.capture.stages:
        subject = origin.capture.module("hlo")
    else:
        subject = origin.module
    result = api.bench(
        subject,
        per_kernel=True,
        budget=BENCH_BUDGET_S,
        kernel_budget=BENCH_KERNEL_BUDGET_S,
        **options,
    )
    return sections.bench_section(result.to_dict(), result.kernel_rows(), result.notes)

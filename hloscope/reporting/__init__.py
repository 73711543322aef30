"""Gathering a report: everything ``hloscope report`` shows about one module, from what names it.

:func:`build_report` takes a TARGET string or path, a :class:`~hloscope.capture.target.Target`,
a :class:`~hloscope.backends.record.Capture` or a parsed :class:`~hloscope.hlo.model.Module`,
runs the analyses that apply to it, and returns the typed
:class:`~hloscope.render.html.report.Report` the page renders:

* the summary and kernel table (:func:`~hloscope.analysis.summary.summarize`,
  :func:`~hloscope.analysis.fusions.fusion_report`), graphs of the heaviest kernels
  (:mod:`._graphs` chooses them) and the hints (:mod:`hloscope.analysis.report_hints`);
* the source view, with the text of each line read from the program's files (looked for in
  the working folder and beside the target) and what :mod:`hloscope.drivers.explain` links
  to it (a function target is traced again, once and cached, for the line of each jaxpr
  equation);
* the memory section: the peak, what is live there and the timeline
  (:func:`~hloscope.drivers.memory.memory_of_side`: XLA's side files of a dump, a
  capture's own buffer assignment, else hloscope's simulation of the module, said so);
* the collectives of an SPMD module (:mod:`hloscope.analysis.collectives`), and the step
  estimate on every device of the registry with interconnect figures
  (:mod:`hloscope.analysis.step_estimate`);
* the pass timeline of a capture or dump with per-pass snapshots
  (:mod:`hloscope.analysis.passes`), the recompiles of a dump
  (:mod:`hloscope.analysis.recompiles`), the unsupported ops of each platform
  (:mod:`hloscope.analysis.unsupported`, or ``hloscope check`` of a function in a child
  process), and bench results when asked for (:mod:`hloscope.bench`);
* "what if", when asked: ``hloscope try``'s variants of a function compiled for a TPU chip or
  slice and ranked (:mod:`hloscope.drivers.variants`).

What kind of subject a report is about is looked at once, in :mod:`._origins` (one class per
kind: where its capture, dump, side files are); the sections (:mod:`._sections`,
:mod:`._checks`, :mod:`._sources`) ask the origin and never the kind, and
:mod:`hloscope.render.html` only turns the data into a page. This package sits in the top
layer, beside the command line and the public API, because it calls into every layer below.

An optional section that cannot be made (a failing analysis, a missing part of hloscope)
leaves a note saying why instead of failing the report; ``HLOSCOPE_DEBUG=1`` lets the error
through::

    report = hloscope.build_report("samples/hlo/transformer_train.after_optimizations.txt")
    report.write("report.html")
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..analysis.fusion_notes import summary_to_dict
from ..analysis.fusions import FusionReport, fusion_report
from ..analysis.report_hints import Hint, HintKind, hints
from ..analysis.summary import summarize
from ..hlo.model import Module
from ..render.html.failed_report import FailedReport
from ..render.html.report import Report, table_rows
from . import _checks, _sections
from ._checks import CHECK_TIMEOUT_S, PLATFORMS
from ._failed import build_failed_report, failed_compile
from ._graphs import heaviest_graphs
from ._optional import optional as _optional
from ._origins import Origin, origin_of
from ._sources import CODE_CHARS, source_rows
from ._what_if import add_what_if

if TYPE_CHECKING:  # pragma: no cover
    from ..backends.record import Capture
    from ..capture.target import Target
    from ..devices import DeviceSpec
    from ..drivers.variants import VariantOptions

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
    "CHECK_TIMEOUT_S",
    "CODE_CHARS",
]

#: How many of the heaviest kernels get a picture of their neighbourhood.
DEFAULT_GRAPHS = 4
#: Graphs a capture's notebook view draws (each costs a ``dot`` run).
CAPTURE_GRAPHS = 2


def build_report(
    value: str | os.PathLike[str] | Target | Capture | Module,
    *,
    module: str | None = None,
    bench: bool = False,
    graphs: int = DEFAULT_GRAPHS,
    refresh: bool = False,
    device: str | DeviceSpec | None = None,
    profile: str | os.PathLike[str] | None = None,
    what_if: VariantOptions | None = None,
    goal: str = "fit",
    audit: list[str] | None = None,
) -> Report:
    """The :class:`~hloscope.render.html.report.Report` of ``value``: a TARGET string or
    path, a :class:`~hloscope.capture.target.Target`, a
    :class:`~hloscope.backends.record.Capture` or a parsed :class:`~hloscope.hlo.model.Module`.

    ``module`` picks the module of a target with several (as ``--module`` does); ``graphs``
    is how many of the heaviest kernels get a picture (0: none); ``bench`` adds measured
    times (:mod:`hloscope.bench` compiles and runs the program and each kernel alone on the
    device JAX sees: it needs jax and takes seconds to minutes); ``refresh`` captures a script
    target again; ``device`` (``tpu-v5e``, ``h100``...) prices each collective on that
    device's interconnect (the step on every device is shown either way); ``profile`` (a
    ``jax.profiler.trace`` folder or file of this module) adds its op profile; ``what_if``
    (of a function target, for a TPU chip or slice ``device``) adds ``hloscope try``'s
    variants of it, ranked by ``goal``; ``audit`` (flags) its flag audit instead.
    """
    origin = origin_of(value, module, refresh)
    out = _kernels(origin, bench, graphs)
    _add_sections(out, origin, device)
    if profile is not None:
        out.profile = _optional(
            out, "profile", lambda: _sections.profile_of(origin, profile, device)
        )
    if bench:
        out.bench = _optional(out, "bench", lambda: _sections.bench_of(origin))
    if what_if is not None or audit is not None:
        add_what_if(out, origin.framework_spec(), device, what_if, goal, audit)
    return out


def _kernels(origin: Origin, bench: bool, graphs: int) -> Report:
    """The report's summary, kernel table and graphs, with the notes on what they show."""
    report = fusion_report(origin.module)
    rows = table_rows(report)
    out = Report(
        target=origin.label,
        module=origin.module.name,
        summary=summarize(origin.module),
        fusions=report,
        fusion_summary=summary_to_dict(report.summary),
        rows=rows,
        sources=[],
        graphs=[],
        bench_asked=bench,
    )
    if origin.note:
        out.notes.append(origin.note)
    compiled = origin.compiled_note()
    if compiled:
        out.notes.insert(0, compiled)
    if len(rows) < len(report.kernels):
        out.notes.append(
            f"the kernel table lists the {len(rows):,} kernels moving the most bytes of "
            f"{len(report.kernels):,}"
        )
    out.graphs, notes = heaviest_graphs(origin.module, report, graphs)
    out.notes.extend(notes)
    return out


def _add_sections(out: Report, origin: Origin, device: str | DeviceSpec | None) -> None:
    """The optional sections, each a note instead when it cannot be made, and the hints."""
    out.explanation = _optional(out, "source view details", lambda: _sections.explained(origin))
    out.sources = source_rows(origin, out)
    out.memory = _optional(out, "memory", lambda: _sections.memory(origin))
    out.collectives = _optional(out, "collectives", lambda: _sections.collectives(origin, device))
    out.compile_time = _optional(out, "compile time", lambda: _sections.compile_time_of(origin))
    out.passes = _optional(out, "pass timeline", lambda: _sections.timeline(origin))
    ledger = _optional(out, "recompiles", lambda: _sections.recompiles(origin))
    out.recompiles = _sections.recompiles_section(ledger)
    out.checks = _optional(out, "unsupported ops", lambda: _checks.checks(origin)) or []
    out.mxu = _optional(out, "TPU MXU alignment", lambda: _checks.mxu(origin))
    out.hints = hints(out.fusions, origin.module, ledger)
    out.summary_notes = summary_notes_shown(out.fusion_summary["notes"], out.fusions, out.hints)


def summary_notes_shown(notes: list[str], fusions: FusionReport, shown: list[Hint]) -> list[str]:
    """The fusion summary's ``notes`` the page says under the summary: those the hints do not
    already say. The unfused elementwise ops are a hint of their own, with their chains, and
    :func:`~hloscope.analysis.fusion_notes.summary_notes` says them first."""
    said = {h.kind for h in shown}
    if fusions.summary.unfused_elementwise and HintKind.UNFUSED_CHAIN in said:
        return list(notes[1:])
    return list(notes)


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

"""``hloscope report``: one self-contained HTML page about one compiled module.

:func:`build_report` gathers what the other commands show one at a time, for the main module
of a TARGET (or a :class:`~hloscope.capture.inprocess.Capture`, or a parsed
:class:`~hloscope.hlo.model.Module`), into a :class:`Report`:

* the **summary**: kernels, fusions by kind, bytes through memory, FLOPs, parameters, and the
  notes ``hloscope fusions`` prints (:func:`~hloscope.analysis.summary.summarize`,
  :func:`~hloscope.analysis.fusions.fusion_report`);
* the **kernel table**, one row per kernel, sortable by any column and filterable in the page;
* **graphs** of the heaviest kernels' neighbourhoods (the kernels moving the most bytes, drawn
  by :mod:`hloscope.render.graphviz` within its layout budget), when Graphviz's ``dot`` is
  installed;
* the **source view**: for each line of the program, the kernels its ops ended in, with the
  line's text when the file is at hand, and, where :mod:`hloscope.analysis.explain` can say,
  its jaxpr equations, StableHLO ops and HLO instructions (:mod:`.sections`);
* when they apply: the **pass timeline** of a capture or dump with per-pass snapshots,
  **recompiles** of a dump whose functions compiled more than once, **unsupported ops** for
  a platform, and **bench** results when asked for.

A section that cannot be made (a missing ``dot``, a failing optional analysis) leaves a note
saying why instead of failing the report. :meth:`Report.to_html` writes the page (every style
and script inline, nothing fetched, see :mod:`.page`); :meth:`Report._repr_html_` shows the
same in Jupyter.

    >>> report = build_report("samples/hlo/transformer_train.after_optimizations.txt")
    >>> report.write("report.html")
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..._version import __version__
from ...analysis.fusions import FusionReport, fusion_report
from ...analysis.summary import ModuleSummary, summarize
from ...errors import HloscopeError
from ...hlo.model import Module
from ..rows import summary_to_dict
from . import sections
from .hints import Hint, hints
from .page import new_uid, render
from .sections import STAGE_LABELS

if TYPE_CHECKING:  # pragma: no cover
    from ...capture.inprocess import Capture
    from ...capture.target import Target

__all__ = [
    "Report",
    "build_report",
    "write_report",
    "REPORT_SCHEMA",
    "DEFAULT_GRAPHS",
    "MAX_TABLE_ROWS",
]

#: The ``schema`` of the machine-readable summary inside the page (``#hloscope-data``).
REPORT_SCHEMA = "hloscope.report/1"
#: How many of the heaviest kernels get a picture of their neighbourhood.
DEFAULT_GRAPHS = 4
#: The kernel table lists at most this many kernels (the heaviest, by bytes through memory);
#: a module with more says how many were left out.
MAX_TABLE_ROWS = 5000
DEBUG_ENV = "HLOSCOPE_DEBUG"


@dataclass(slots=True)
class Report:
    """Everything one report page shows (see the module docstring); build with
    :func:`build_report`.

    ``rows`` are the kernel table's rows (:meth:`FusionReport.rows`, each with its ``index``
    in report order, at most :data:`MAX_TABLE_ROWS`). The optional sections are ``None`` (or
    empty) when they do not apply; ``notes`` say what was left out and why.
    """

    target: str
    module: str
    summary: ModuleSummary
    fusions: FusionReport
    rows: list[dict[str, Any]]
    sources: list[sections.SourceLine]
    graphs: list[sections.KernelGraph]
    explanation: sections.Explained | None = None
    passes: sections.Timeline | None = None
    recompiles: dict[str, Any] | None = None
    checks: list[dict[str, Any]] = field(default_factory=list)
    bench: dict[str, Any] | None = None
    bench_asked: bool = False
    notes: list[str] = field(default_factory=list)
    hints: list[Hint] = field(default_factory=list)
    version: str = __version__

    # -- what it holds ---------------------------------------------------------------------

    @property
    def title(self) -> str:
        return f"hloscope report: {self.module}"

    def section_names(self) -> list[str]:
        """The sections the page shows, in page order."""
        names = ["summary", "kernels"]
        if self.graphs:
            names.append("graphs")
        names.append("source")
        if self.passes is not None:
            names.append("passes")
        if self.recompiles is not None:
            names.append("recompiles")
        if self.checks:
            names.append("unsupported")
        if self.bench_asked:
            names.append("bench")
        return names

    def kernel_index(self) -> dict[str, int]:
        """Each kernel's name -> its row number in the kernel table (the first of a name)."""
        index: dict[str, int] = {}
        for i, kernel in enumerate(self.fusions.kernels):
            index.setdefault(kernel.name, i)
        return index

    def to_dict(self) -> dict[str, Any]:
        """The page's machine-readable part (``<script id="hloscope-data">``): what was
        reported on and the summary's numbers, not the tables."""
        return {
            "schema": REPORT_SCHEMA,
            "hloscope": self.version,
            "target": self.target,
            "module": self.module,
            "sections": self.section_names(),
            "summary": summary_to_dict(self.fusions.summary),
            "module_summary": self.summary.to_dict(),
            "kernels_shown": len(self.rows),
            "hints": [
                {"kind": str(h.kind), "title": h.title, "evidence": h.evidence} for h in self.hints
            ],
            "notes": list(self.notes),
        }

    def summary_notes(self) -> list[str]:
        """The fusion summary's notes the hints do not already say (the unfused elementwise
        ops are a hint of their own, with their chains)."""
        notes = summary_to_dict(self.fusions.summary)["notes"]
        shown = {h.kind for h in self.hints}
        if self.fusions.summary.unfused_elementwise and "unfused_elementwise" in shown:
            notes = notes[1:]  # summary_notes says the unfused elementwise ops first
        return notes

    def summary_lines(self) -> list[str]:
        """A few lines for the terminal: the module, its kernels and costs, the sections."""
        from ...units import format_bytes, format_count

        s = self.fusions.summary
        lines = [
            f"module {self.module}: {s.kernel_count} kernels ({s.fusion_count} fusions, "
            f"{s.unfused_count} unfused), {format_bytes(s.bytes)} through memory, "
            f"{format_count(s.flops)} FLOPs",
            "sections: " + ", ".join(self._section_counts()),
        ]
        return lines

    def _section_counts(self) -> list[str]:
        counts = {
            "kernels": len(self.rows),
            "graphs": len(self.graphs),
            "source": len(self.sources),
            "passes": len(self.passes.steps) if self.passes is not None else 0,
            "unsupported": sum(len(c["findings"]) for c in self.checks),
        }
        return [f"{n} ({counts[n]})" if n in counts else n for n in self.section_names()]

    # -- output ----------------------------------------------------------------------------

    def to_html(self) -> str:
        """The standalone page: ``<!doctype html>`` to ``</html>``, nothing outside it."""
        return render(
            "report.html.j2", report=self, uid="hs", data=self.to_dict(), labels=STAGE_LABELS
        )

    def _repr_html_(self) -> str:
        """The report in a Jupyter cell (the page's body, styles and script scoped to it)."""
        return render("report_fragment.html.j2", report=self, uid=new_uid(), labels=STAGE_LABELS)

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write :meth:`to_html` to ``path`` (UTF-8) and return the path."""
        out = Path(path)
        out.write_text(self.to_html(), encoding="utf-8")
        return out


# ------------------------------------------------------------------------------------------
# Building
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


def _origin(value: Any, module: str | None, refresh: bool) -> _Origin:
    from ...capture.inprocess import Capture
    from ...capture.target import Target, TargetKind

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


def build_report(
    value: Any,
    *,
    module: str | None = None,
    bench: bool = False,
    graphs: int = DEFAULT_GRAPHS,
    refresh: bool = False,
) -> Report:
    """The :class:`Report` of ``value``: a TARGET string or path, a
    :class:`~hloscope.capture.target.Target`, a :class:`~hloscope.capture.inprocess.Capture`
    or a parsed :class:`~hloscope.hlo.model.Module`.

    ``module`` picks the module of a target with several (as ``--module`` does); ``graphs``
    is how many of the heaviest kernels get a picture (0: none); ``bench`` adds measured
    times (:mod:`hloscope.bench` compiles and runs the program and each kernel alone on the
    device JAX sees: it needs jax and takes seconds to minutes); ``refresh`` captures a script
    target again.
    """
    origin = _origin(value, module, refresh)
    report = fusion_report(origin.module)
    rows = _table_rows(report)
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
    if len(rows) < len(report.kernels):
        out.notes.append(
            f"the kernel table lists the {len(rows):,} kernels moving the most bytes of "
            f"{len(report.kernels):,}"
        )
    out.graphs, notes = sections.heaviest_graphs(origin.module, report, graphs)
    out.notes.extend(notes)
    out.explanation = _optional(out, "source view details", lambda: sections.explained(origin))
    out.sources = sections.source_lines(report, out.explanation, _search_dirs(origin))
    out.passes = _optional(out, "pass timeline", lambda: sections.timeline(origin))
    out.recompiles = _optional(out, "recompiles", lambda: sections.recompiles(origin))
    out.checks = _optional(out, "unsupported ops", lambda: sections.checks(origin)) or []
    out.hints = hints(report, origin.module, out.recompiles)
    if bench:
        out.bench = _optional(out, "bench", lambda: sections.bench(origin))
    return out


def write_report(value: Any, path: str | os.PathLike[str], **options: Any) -> Report:
    """:func:`build_report` with ``options``, written to ``path``; returns the report."""
    report = build_report(value, **options)
    report.write(path)
    return report


def _table_rows(report: FusionReport) -> list[dict[str, Any]]:
    """The kernel table's rows in report order, at most :data:`MAX_TABLE_ROWS` (the heaviest)."""
    rows = report.rows()
    for index, row in enumerate(rows):
        row["index"] = index
    if len(rows) <= MAX_TABLE_ROWS:
        return rows
    heaviest = sorted(rows, key=lambda r: -(r["bytes"] or 0))[:MAX_TABLE_ROWS]
    return sorted(heaviest, key=lambda r: r["index"])


def _optional(report: Report, what: str, build: Callable[[], Any]) -> Any:
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


def _search_dirs(origin: _Origin) -> list[Path]:
    """Where the source files named in metadata may be found: the working folder, then the
    target's folder and the folders above it (metadata paths are often relative)."""
    dirs = [Path.cwd()]
    target = origin.target
    if target is not None:
        base = target.script if target.script is not None else target.path
        anchor = base.resolve().parent
        dirs.extend([anchor, *list(anchor.parents)[:3]])
    return list(dict.fromkeys(dirs))

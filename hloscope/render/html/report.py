"""The report page: :class:`Report` holds everything one ``hloscope report`` page shows about
one compiled module, as typed data, and writes it as HTML.

A report is built one layer up, by :func:`hloscope.reporting.build_report` (which gathers the
analyses from a TARGET, a capture or a module); here it is only data in, text out:

* the **summary**: kernels, fusions by kind, bytes through memory, FLOPs, parameters, and the
  notes ``hloscope fusions`` prints (a :class:`~hloscope.analysis.summary.ModuleSummary` and
  a :class:`~hloscope.analysis.fusions.FusionReport`);
* the **kernel table**, one row per kernel (:func:`table_rows`), sortable by any column and
  filterable in the page;
* **graphs** of the heaviest kernels' neighbourhoods (:class:`~.sections.KernelGraph`);
* the **source view** (:class:`~.sections.ReportSourceRow`): for each line of the program,
  the kernels its ops ended in, with the line's text and, where known, its jaxpr equations,
  StableHLO ops and HLO instructions (:class:`~.sections.Explained`);
* when they apply: the **pass timeline** (:class:`~.sections.Timeline`), **recompiles**
  (:class:`~.sections.Recompiles`), **unsupported ops** per platform
  (:class:`~.sections.PlatformCheck`), the **profile** of a trace
  (:class:`~.profile_section.ProfileSection`), and **bench** results
  (:class:`~.bench_section.BenchSection`);
* **memory** (:class:`~.memory_section.MemorySection`): the peak, what is live there by source line
  and scope, what would free memory, and the timeline picture, with where the numbers come
  from (XLA's buffer assignment, or hloscope's simulation, said so);
* **collectives**, for a module that has some
  (:class:`~.collectives_section.CollectivesSection`): each with its bytes, groups and runs
  per call, and the step estimate on every device of the interconnect table (compute,
  exposed and hidden communication);
* **what if** (:class:`~.try_section.TrySection`), when asked: ``hloscope try``'s variants of
  the function, each XLA's compile for the target, ranked, with the change for the best.

:meth:`Report.to_html` writes the page (every style and script inline, nothing fetched, see
:mod:`.page`); :meth:`Report._repr_html_` shows the same in Jupyter::

    report = hloscope.build_report("samples/hlo/transformer_train.after_optimizations.txt")
    report.write("report.html")
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..._version import __version__
from ...analysis.fusions import FusionReport
from ...analysis.report_hints import Hint
from ...analysis.summary import ModuleSummary
from .bench_section import BenchSection
from .collectives_section import CollectivesSection
from .memory_section import MemorySection
from .page import new_uid, render
from .sections import (
    STAGE_LABELS,
    Explained,
    KernelGraph,
    MxuSection,
    PlatformCheck,
    Recompiles,
    ReportSourceRow,
    Timeline,
)

if TYPE_CHECKING:  # pragma: no cover
    from .compile_time_section import CompileTimeSection
    from .profile_section import ProfileSection
    from .try_section import TrySection

__all__ = ["Report", "table_rows", "REPORT_SCHEMA", "MAX_TABLE_ROWS"]

#: The ``schema`` of the machine-readable summary inside the page (``#hloscope-data``).
REPORT_SCHEMA = "hloscope.report/1"
#: The kernel table lists at most this many kernels (the heaviest, by bytes through memory);
#: a module with more says how many were left out.
MAX_TABLE_ROWS = 5000


@dataclass(slots=True)
class Report:
    """Everything one report page shows (see the module docstring); build with
    :func:`hloscope.build_report`.

    ``rows`` are the kernel table's rows (:meth:`FusionReport.rows`, each with its ``index``
    in report order, at most :data:`MAX_TABLE_ROWS`). The optional sections are ``None`` (or
    empty) when they do not apply; ``notes`` say what was left out and why.
    """

    target: str
    module: str
    summary: ModuleSummary
    fusions: FusionReport
    #: The fusion summary as ``hloscope fusions --json`` prints it, its notes included
    #: (:func:`hloscope.analysis.fusion_notes.summary_to_dict`).
    fusion_summary: dict[str, Any]
    rows: list[dict[str, Any]]
    sources: list[ReportSourceRow]
    graphs: list[KernelGraph]
    explanation: Explained | None = None
    memory: MemorySection | None = None
    passes: Timeline | None = None
    recompiles: Recompiles | None = None
    checks: list[PlatformCheck] = field(default_factory=list)
    mxu: MxuSection | None = None
    collectives: CollectivesSection | None = None
    bench: BenchSection | None = None
    bench_asked: bool = False
    profile: ProfileSection | None = None
    compile_time: CompileTimeSection | None = None
    #: ``hloscope try``'s variants of the function, when asked (``report --try``).
    what_if: TrySection | None = None
    #: The same as ``hloscope try --json`` prints it, for the page's machine-readable part.
    what_if_data: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    hints: list[Hint] = field(default_factory=list)
    #: The fusion summary's notes the page says under the summary: those the hints do not
    #: already say (chosen by :func:`hloscope.reporting.build_report`).
    summary_notes: list[str] = field(default_factory=list)
    version: str = __version__

    # -- what it holds ---------------------------------------------------------------------

    @property
    def title(self) -> str:
        return f"hloscope report: {self.module}"

    def section_names(self) -> list[str]:
        """The sections the page shows, in page order."""
        shown = (
            ("summary", True),
            ("kernels", True),
            ("graphs", bool(self.graphs)),
            ("source", True),
            ("memory", self.memory is not None),
            ("collectives", self.collectives is not None),
            ("what-if", self.what_if is not None),
            ("compile-time", self.compile_time is not None),
            ("passes", self.passes is not None),
            ("recompiles", self.recompiles is not None),
            ("unsupported", bool(self.checks)),
            ("mxu", self.mxu is not None),
            ("profile", self.profile is not None),
            ("bench", self.bench_asked),
        )
        return [name for name, present in shown if present]

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
            "summary": dict(self.fusion_summary),
            "module_summary": self.summary.to_dict(),
            "kernels_shown": len(self.rows),
            **({"memory": self.memory.to_dict()} if self.memory is not None else {}),
            **({"collectives": self.collectives.to_dict()} if self.collectives is not None else {}),
            **({"what_if": self.what_if_data} if self.what_if_data is not None else {}),
            "hints": [
                {"kind": str(h.kind), "title": h.title, "evidence": h.evidence} for h in self.hints
            ],
            "notes": list(self.notes),
        }

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
            "collectives": len(self.collectives.rows) if self.collectives is not None else 0,
            "passes": len(self.passes.steps) if self.passes is not None else 0,
            "unsupported": sum(len(c.findings) for c in self.checks),
            "mxu": self.mxu.count if self.mxu is not None else 0,
            "what-if": len(self.what_if.rows) if self.what_if is not None else 0,
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


def table_rows(report: FusionReport) -> list[dict[str, Any]]:
    """The kernel table's rows in report order, at most :data:`MAX_TABLE_ROWS` (the heaviest)."""
    rows = report.rows()
    for index, row in enumerate(rows):
        row["index"] = index
    if len(rows) <= MAX_TABLE_ROWS:
        return rows
    heaviest = sorted(rows, key=lambda r: -(r["bytes"] or 0))[:MAX_TABLE_ROWS]
    return sorted(heaviest, key=lambda r: r["index"])

"""Rich display in Jupyter: ``_repr_html_`` for fusion reports and kernel diffs.

Jupyter shows an object as HTML when its class has a ``_repr_html_`` method. The classes
that deserve one live in lower layers (:mod:`hloscope.capture`, :mod:`hloscope.analysis`),
which must not import the renderers above them, so the methods are not written there:
``import hloscope`` sets them on the classes when their modules load. Each one imports the
HTML renderer only when a notebook asks for it.

* a :class:`~hloscope.analysis.fusions.FusionReport` shows its summary, the notes it is
  given (decided above: :mod:`hloscope.reporting.notebook_views`) and the sortable,
  filterable kernel table;
* a :class:`~hloscope.analysis.diff.KernelDiff` shows the totals of A and B, each change with
  its sentence (:func:`~hloscope.render.diff_text.describe`) and the source lines that moved;
* a :class:`~hloscope.render.html.report.Report` has its own method; a
  :class:`~hloscope.capture.inprocess.Capture` shows the report of its optimized module,
  which is gathered one layer up (:func:`hloscope.reporting.capture_html`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["fusion_report_html", "kernel_diff_html"]


def fusion_report_html(report: Any, notes: list[str]) -> str:
    """A :class:`~hloscope.analysis.fusions.FusionReport` as HTML: summary, the ``notes`` it
    was given (:func:`hloscope.reporting.notebook_views.fusion_report_view` decides them) and
    the kernel table."""
    from .page import new_uid, render

    rows = report.rows()
    for index, row in enumerate(rows):
        row["index"] = index
    return render(
        "fusions_fragment.html.j2",
        summary=report.summary,
        notes=notes,
        rows=rows,
        uid=new_uid(),
    )


def kernel_diff_html(result: Any) -> str:
    """A :class:`~hloscope.analysis.diff.KernelDiff` as HTML: totals, changes, lines."""
    from ..diff_text import describe
    from .page import new_uid, render

    changes = [
        {"status": str(c.status), "clauses": describe(c).split("; ")} for c in result.changed()
    ]
    return render(
        "diff_fragment.html.j2",
        diff=result,
        totals=result.totals,
        counts={str(s): n for s, n in result.counts.items() if n},
        changes=changes,
        lines=[line.to_dict() for line in result.lines],
        uid=new_uid(),
    )

"""What a fusion report shows in a Jupyter cell, gathered above the renderers: the notes its
summary gets are decided by :func:`~hloscope.analysis.fusion_notes.summary_notes` here, and
:func:`~hloscope.render.html.notebook.fusion_report_html` prints the notes it is handed
(``import hloscope`` sets this as ``FusionReport._repr_html_``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.fusions import FusionReport

__all__ = ["fusion_report_view"]


def fusion_report_view(report: FusionReport) -> str:
    """``report`` as a notebook's HTML: its summary, the notes it suggests, the kernel table."""
    from ..analysis.fusion_notes import summary_notes
    from ..render.html.notebook import fusion_report_html

    return fusion_report_html(report, summary_notes(report.summary))

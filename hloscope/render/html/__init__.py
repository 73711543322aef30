"""HTML output: the ``hloscope report`` page and the Jupyter views of hloscope's results.

Data in, text out: a report is gathered one layer up (:func:`hloscope.reporting.build_report`
runs the analyses a TARGET needs) and rendered here.

* :mod:`.report` -- :class:`Report`, everything one page shows about a module (summary,
  kernel table, graphs, source view, optional sections) as typed data, and
  :meth:`Report.to_html`, which writes one self-contained page;
* :mod:`.sections` -- the typed data of the page's parts beyond summary and table, each made
  from the analysis result it shows;
* :mod:`.hints` -- the "look here first" hints, computed from the report's numbers;
* :mod:`.page` -- the Jinja2 environment (templates in ``templates/``, autoescape on), the
  inline CSS and JavaScript, and the page's Content-Security-Policy;
* :mod:`.escape` -- JSON inside ``<script>``, and the check every Graphviz SVG passes;
* :mod:`.notebook` -- ``_repr_html_`` for :class:`~hloscope.analysis.fusions.FusionReport`
  and :class:`~hloscope.analysis.diff.KernelDiff` (installed by ``import hloscope``).

Nothing here imports jax or TensorFlow, captures, benches or reads the program's files.
Importing this package is cheap: the submodules load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .report import Report

__all__ = ["Report"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import report

        return getattr(report, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

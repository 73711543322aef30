"""HTML output: the ``hloscope report`` page and the Jupyter views of hloscope's results.

* :mod:`.report` -- :func:`build_report` gathers a module's summary, kernel table, graphs of
  the heaviest kernels, source view and the optional sections into a :class:`Report`, and
  :meth:`Report.to_html` writes one self-contained page;
* :mod:`.sections` -- the builders of the page's parts beyond summary and table;
* :mod:`.page` -- the Jinja2 environment (templates in ``templates/``, autoescape on), the
  inline CSS and JavaScript, and the page's Content-Security-Policy;
* :mod:`.escape` -- JSON inside ``<script>``, and the check every Graphviz SVG passes;
* :mod:`.notebook` -- ``_repr_html_`` for :class:`~hloscope.capture.inprocess.Capture`,
  :class:`~hloscope.analysis.fusions.FusionReport` and
  :class:`~hloscope.analysis.diff.KernelDiff` (installed by ``import hloscope``).

Nothing here imports jax or TensorFlow. Importing this package is cheap: the submodules load
on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .report import Report, build_report, write_report

__all__ = ["Report", "build_report", "write_report"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import report

        return getattr(report, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

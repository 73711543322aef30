"""The errors of rendering: a picture that cannot be drawn, a table that cannot be laid out.

- :data:`GraphRenderError`: a picture could not be made (an unknown name, ``dot`` missing or
  failing); the same class as :class:`hloscope.hlo.errors.GraphError`, by the name the
  renderers use, so one ``except`` catches a bad selection and a failed drawing (exit status 1).
- :class:`GraphFormatError`: an output format :mod:`hloscope.render.graphviz` cannot draw or
  tell from the file name (exit status 2).
- :class:`DotTimeout`: ``dot`` ran past its time limit and was stopped, raised by
  :mod:`hloscope.render.graphviz` (exit status 1).
- :class:`UnsafeSvgError`: a picture that holds something other than drawing (a script, an
  event handler, a link out), raised by :func:`hloscope.render.html.escape.clean_svg` before
  it goes into a report (exit status 1).
- :class:`ReportOptionError`: a ``--filter`` or ``--sort`` column the table cannot apply,
  raised by :mod:`hloscope.render.rows` (exit status 2).
"""

from __future__ import annotations

__all__ = [
    "GraphRenderError",
    "GraphFormatError",
    "DotTimeout",
    "UnsafeSvgError",
    "ReportOptionError",
]

from ..errors import HloscopeError, UsageProblem
from ..hlo.errors import GraphError

#: A picture could not be made (an unknown name, ``dot`` missing or failing); one line.
GraphRenderError = GraphError


class GraphFormatError(GraphRenderError, UsageProblem):
    """An output format that cannot be drawn or told from the file name (exit status 2)."""


class DotTimeout(GraphRenderError):
    """``dot`` ran past its time limit (and was stopped)."""


class UnsafeSvgError(HloscopeError):
    """A picture that holds something other than drawing (a script, a handler, a link out)."""


class ReportOptionError(UsageProblem, ValueError):
    """A filter or sort column the report cannot apply (a user error, shown as one line)."""

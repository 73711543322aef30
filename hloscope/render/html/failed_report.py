"""The page of a function XLA could not compile: the bug report a user attaches.

``hloscope report SCRIPT.py:FUNCTION`` of a function whose compile fails (a
``tf.function(jit_compile=True)`` with string ops and ``tf.py_function``) has no optimized
module, so none of the usual sections can be made. What can be shown is what a maintainer
asks for first, in this order:

1. the **unsupported ops**: ``hloscope check`` of the function for each platform that finds
   something, each op with its node, the user's line and what to do (the same tables as the
   report's "Unsupported ops" section);
2. the **compile error**, whole: the compiler's message runs to many lines and names the
   node, the device and the graph, where the command line says only its first;
3. the **function's source**, as the file holds it now;
4. the versions of the frameworks that ran, and notes on what was left out;
5. **what if**, when asked (``report --try``): ``hloscope try``'s variants of the function,
   the baseline refused in the compiler's words, and which variants compile and fit (the same
   section as the report's, :class:`~.try_section.TrySection`).

:class:`FailedReport` is data in, text out, like :class:`~.report.Report`; it is built one
layer up by :func:`hloscope.reporting.build_failed_report`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..._version import __version__
from .page import render
from .sections import PlatformCheck

if TYPE_CHECKING:  # pragma: no cover
    from .try_section import TrySection

__all__ = ["FailedReport", "FAILED_REPORT_SCHEMA"]

#: The ``schema`` of the machine-readable part of a failed compile's page.
FAILED_REPORT_SCHEMA = "hloscope.failed-report/1"


@dataclass(slots=True)
class FailedReport:
    """What the page of a failed compile shows (see the module docstring): ``error`` is the
    compile error whole, ``source`` the function's lines as ``(line number, text)`` in
    ``source_file``, ``versions`` the frameworks that ran (``{"tensorflow": "2.21.0"}``)."""

    target: str
    error: str
    checks: list[PlatformCheck] = field(default_factory=list)
    source_file: str = ""
    source: list[tuple[int, str]] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: ``hloscope try``'s variants of the function, when asked (``report --try``).
    what_if: TrySection | None = None
    #: The same as ``hloscope try --json`` prints it, for the page's machine-readable part.
    what_if_data: dict[str, Any] | None = None
    version: str = __version__

    @property
    def title(self) -> str:
        return f"hloscope report: {self.target} did not compile"

    @property
    def problems(self) -> int:
        """How many problems the checks found (warnings left out)."""
        return sum(1 for c in self.checks for f in c.findings if not f.warning)

    def to_dict(self) -> dict[str, Any]:
        """The page's machine-readable part (``<script id="hloscope-data">``)."""
        return {
            "schema": FAILED_REPORT_SCHEMA,
            "hloscope": self.version,
            "target": self.target,
            "compiled": False,
            "error": self.error,
            "checks": [
                {"platform": c.platform, "verdict": c.verdict, "supported": c.supported}
                for c in self.checks
            ],
            "problems": self.problems,
            "versions": dict(self.versions),
            **({"what_if": self.what_if_data} if self.what_if_data is not None else {}),
            "notes": list(self.notes),
        }

    def to_html(self) -> str:
        """The standalone page, every value escaped."""
        return render("failed_report.html.j2", report=self, uid="hs", data=self.to_dict())

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write :meth:`to_html` to ``path`` (UTF-8) and return the path."""
        out = Path(path)
        out.write_text(self.to_html(), encoding="utf-8")
        return out

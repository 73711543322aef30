"""A compatibility check as text: findings grouped by function, one line each, then the fixes.

    hloscope check: jit_f for tpu
    <top>
      ✗ custom_call  lapack_ssyevd_ffi  eigh.17  SOURCE.py:6  LAPACK kernel of ...  [1]
      ! host_callback  xla_ffi_python_cpu_callback  pure_callback.1  SOURCE.py:6  ...  [2]
    fixes
      [1] a LAPACK kernel exists only on CPU: ...
    note: checked the HLO before optimizations of module jit_f for tpu
    NOT SUPPORTED on tpu: 7 problems (7 custom_call), 1 warning

Each finding is one line that fits the terminal: a mark (``✗`` stops the program compiling,
``!`` only warns), the reason, the op, the node, where in the user's code (the file name and
line; ``--json`` has the full path) and as much of the detail as fits. The fixes are long
sentences, and most findings share one, so they are numbered and printed once, whole, under
the findings. A proxy check (TensorFlow on a CPU-only build checking for GPU or TPU) says so in
a line of its own before the findings, and notes follow them. The last line is the verdict.

Every string comes from the program or its HLO text, so all of it goes through
:func:`~hloscope.render.terminal.printable`.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Iterable
from pathlib import PurePath
from typing import TextIO

from ..analysis.unsupported.findings import TOP_LEVEL, CheckReport, Finding
from .terminal import printable, shorten_middle

__all__ = ["check_lines", "render_check", "verdict"]

ERROR_MARK = "✗"
WARNING_MARK = "!"
_INDENT = "  "
# What share of a line each column may take before it is cut in the middle (the rest is the
# detail's), and the least it keeps on a narrow terminal.
_SHARE = {"reason": 0.0, "op": 0.28, "node": 0.18, "source": 0.3}
_LEAST = {"reason": 13, "op": 12, "node": 8, "source": 14}
_MIN_WIDTH = 60


def _clean(text: str | None) -> str:
    return printable(" ".join(str(text or "").split()))


def short_source(source: str | None) -> str:
    """``/long/path/model.py:12`` -> ``model.py:12`` (the full path stays in ``--json``)."""
    if not source:
        return "-"
    path, sep, line = source.rpartition(":")
    if sep and line.isdigit():
        return _clean(f"{PurePath(path).name}:{line}")
    return _clean(PurePath(source).name or source)


def verdict(report: CheckReport) -> str:
    """The last line: ``NOT SUPPORTED on tpu: 3 problems (2 custom_call, 1 dtype), 1 warning``,
    or ``OK for cpu: no problems (2 warnings)``."""
    errors = report.errors
    warnings = len(report.findings) - len(errors)
    warned = f"{warnings} warning{'s' if warnings != 1 else ''}"
    proxy = " (by proxy)" if report.proxy else ""
    if not errors:
        tail = f" ({warned})" if warnings else ""
        return f"OK for {report.platform}{proxy}: no problems found{tail}"
    kinds = Counter(str(f.reason) for f in errors)
    what = ", ".join(f"{n} {reason}" for reason, n in kinds.most_common())
    problems = f"{len(errors)} problem{'s' if len(errors) != 1 else ''}"
    tail = f", {warned}" if warnings else ""
    return f"NOT SUPPORTED on {report.platform}{proxy}: {problems} ({what}){tail}"


def check_lines(report: CheckReport, width: int = 100) -> list[str]:
    """The report as lines of at most ``width`` characters (the fixes and notes wrap)."""
    width = max(width, _MIN_WIDTH)
    lines = [_headline(report, width)]
    if report.proxy:
        proxy = (
            f"PROXY: no {report.platform} registrations here; the check used another "
            "platform's as a stand-in (see the notes)"
        )
        lines.extend(_wrapped(_clean(proxy), width, "", "       "))
    fixes: dict[str, int] = {}
    groups = report.by_function()
    widths = _column_widths(report.findings, width)
    for function, findings in groups.items():
        heading = function if function != TOP_LEVEL else f"{TOP_LEVEL} (the checked function)"
        lines.append(shorten_middle(_clean(heading), width))
        for finding in findings:
            number = (
                fixes.setdefault(finding.suggestion, len(fixes) + 1) if finding.suggestion else 0
            )
            lines.append(_finding_line(finding, widths, number, width))
    if not report.findings:
        lines.append(_INDENT + "no findings")
    if fixes:
        lines.append("fixes")
        for advice, number in fixes.items():
            lines.extend(_wrapped(f"[{number}] {_clean(advice)}", width, _INDENT, _INDENT + "    "))
    for note in report.notes:
        lines.extend(_wrapped(f"note: {_clean(note)}", width, "", "      "))
    lines.extend(_wrapped(_clean(verdict(report)), width, "", "  "))
    return lines


def _headline(report: CheckReport, width: int) -> str:
    """``hloscope check: PROGRAM for PLATFORM``; a long path loses its middle, never its end."""
    head, tail = "hloscope check: ", f" for {_clean(report.platform)}"
    room = max(width - len(head) - len(tail), 8)
    return head + shorten_middle(_clean(report.program), room) + tail


def _column_widths(findings: Iterable[Finding], width: int) -> dict[str, int]:
    """Each column as wide as its widest cell, at most its share of the line."""
    budget = width - 2 * len(_INDENT) - 12  # indent, mark, separators and the [n] reference
    caps = {c: max(_LEAST[c], int(budget * share)) for c, share in _SHARE.items()}
    widths = dict.fromkeys(caps, 1)
    for finding in findings:
        cells = {
            "reason": str(finding.reason),
            "op": _clean(finding.op) + (f" {finding.dtype}" if finding.dtype else ""),
            "node": _clean(finding.node) or "-",
            "source": short_source(finding.source),
        }
        for column, cell in cells.items():
            widths[column] = min(caps[column], max(widths[column], len(cell)))
    return widths


def _finding_line(finding: Finding, widths: dict[str, int], number: int, width: int) -> str:
    mark = WARNING_MARK if finding.is_warning else ERROR_MARK
    dtype = f" {finding.dtype}" if finding.dtype else ""
    cells = [
        shorten_middle(str(finding.reason), widths["reason"]).ljust(widths["reason"]),
        shorten_middle(_clean(finding.op) + dtype, widths["op"]).ljust(widths["op"]),
        shorten_middle(_clean(finding.node) or "-", widths["node"]).ljust(widths["node"]),
        shorten_middle(short_source(finding.source), widths["source"]).ljust(widths["source"]),
    ]
    head = f"{_INDENT}{mark} " + "  ".join(cells)
    tail = f"  [{number}]" if number else ""
    room = width - len(head) - len(tail) - 2
    detail = _clean(finding.detail)
    if detail and room >= 20:
        head += "  " + (detail if len(detail) <= room else detail[: room - 1] + "…")
    line = (head + tail).rstrip()
    return line if len(line) <= width else shorten_middle(line, width)


def _wrapped(text: str, width: int, first: str, rest: str) -> list[str]:
    return textwrap.wrap(
        text,
        width=width,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=True,
        break_on_hyphens=False,
    ) or [first.rstrip()]


def render_check(report: CheckReport, out: TextIO, width: int = 100) -> None:
    """Write :func:`check_lines` to ``out``."""
    for line in check_lines(report, width):
        out.write(line + "\n")

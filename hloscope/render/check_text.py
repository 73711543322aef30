"""A compatibility check as text: findings grouped by function, one row each, then the fixes.

    hloscope check: jit_f for tpu
    <top> (the checked function)
      ✗ custom_call  lapack_ssyevd_ffi  eigh.17  SOURCE.py:6  LAPACK kernel of ...  [1]
      ! host_callback  xla_ffi_python_c  pure_callback.1  SOURCE.py:6  ...  [2]
                       pu_callback
    fixes
      [1] a LAPACK kernel exists only on CPU: ...
    MXU alignment (128x128 MXU; speed only, not in the verdict)
      ~ dot.3 (model.py:4): [64,100]x[100,200] uses 31% of the MXU; [128,128]x[128,256]
        fills it (5.8M FLOPs of padding)
    note: checked the HLO before optimizations of module jit_f for tpu
    NOT SUPPORTED on tpu: 7 problems (custom_call), 1 warning (host_callback)

Each finding is a row that fits the terminal: a mark (``✗`` stops the program compiling, ``!``
only warns), the reason, the op, the node, where in the user's code (the file name and line;
``--json`` has the full path) and as much of the detail as fits. An op, node or source longer
than its column wraps onto the row's next lines instead of losing its middle (a target name
cut to ``xla_ffi…lback`` says nothing); the detail is the one cell cut, and a line under the
findings says that ``--wide`` shows it whole. ``wide`` gives one line per finding with every
cell in full, whatever the terminal's width. The fixes are long sentences, and most findings
share one, so they are numbered and printed once, whole, under the findings. A proxy check
(TensorFlow on a CPU-only build checking for GPU or TPU) says so in a line of its own before
the findings, and notes follow them. For TPU, the dots and convolutions that leave the matrix
unit partly idle (:mod:`hloscope.analysis.mxu`) come after the fixes, most wasted work first,
:data:`MXU_SHOWN` of them unless ``wide``: they cost speed, not correctness, so the verdict
leaves them out. The last line is the verdict
(:meth:`~hloscope.analysis.unsupported.findings.CheckReport.verdict`, which the report page
shows too).

Every string comes from the program or its HLO text, so all of it goes through
:func:`~hloscope.render.terminal.printable`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from typing import TextIO

from ..analysis.mxu import MxuFinding
from ..analysis.unsupported.findings import TOP_LEVEL, CheckReport, Finding
from ..units import format_count
from .sources import short_source as shared_short_source
from .terminal import ELLIPSIS, printable, shorten_middle

__all__ = ["check_lines", "mxu_lines", "render_check", "verdict", "wrap_name"]

ERROR_MARK = "✗"
WARNING_MARK = "!"
#: The mark of an MXU alignment warning: it runs, only slower.
MXU_MARK = "~"
#: How many MXU warnings the text shows (``--wide`` and ``--json``: all of them).
MXU_SHOWN = 10
_INDENT = "  "
# The least each column keeps on a narrow terminal (a longer cell wraps), and the characters
# of a row that are not cells: indent, mark, the separators and the [n] reference.
_LEAST = {"reason": 13, "op": 12, "node": 8, "source": 10}
_FIXED = len(_INDENT) + 2 + 3 * 2 + 6
_MIN_WIDTH = 60


def _clean(text: str | None) -> str:
    return printable(" ".join(str(text or "").split()))


def short_source(source: str | None) -> str:
    """``/long/path/model.py:12`` -> ``model.py:12``, ``-`` for none (the full path stays in
    ``--json``); :func:`hloscope.render.sources.short_source` made safe for the terminal."""
    return _clean(shared_short_source(source)) if source else "-"


def verdict(report: CheckReport) -> str:
    """The last line, :meth:`CheckReport.verdict`'s text (the report page shows the same):
    ``NOT SUPPORTED on tpu: 3 problems (2 custom_call, 1 dtype), 1 warning (host_callback)``,
    or ``OK for cpu: no problems found, 2 warnings (1 host_callback, 1 export)``."""
    return report.verdict().text


def check_lines(report: CheckReport, width: int = 100, *, wide: bool = False) -> list[str]:
    """The report as lines of at most ``width`` characters (cells, fixes and notes wrap);
    ``wide``: one line per finding, every cell in full (such lines may be longer)."""
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
    widths = _column_widths(report.findings, None if wide else width)
    cut = False
    for function, findings in groups.items():
        heading = function if function != TOP_LEVEL else f"{TOP_LEVEL} (the checked function)"
        lines.extend(_wrapped(_clean(heading), width, "", "  "))
        for finding in findings:
            number = (
                fixes.setdefault(finding.suggestion, len(fixes) + 1) if finding.suggestion else 0
            )
            rows, was_cut = _finding_rows(finding, widths, number, None if wide else width)
            lines.extend(rows)
            cut = cut or was_cut
    if not report.findings:
        lines.append(_INDENT + "no findings")
    if cut:
        lines.append(_INDENT + "(details cut to fit: --wide shows them whole, --json too)")
    if fixes:
        lines.append("fixes")
        for advice, number in fixes.items():
            lines.extend(_wrapped(f"[{number}] {_clean(advice)}", width, _INDENT, _INDENT + "    "))
    lines.extend(mxu_lines(report.mxu, width, wide=wide))
    for note in report.notes:
        lines.extend(_wrapped(f"note: {_clean(note)}", width, "", "      "))
    lines.extend(_wrapped(_clean(verdict(report)), width, "", "  "))
    return lines


def mxu_lines(findings: list[MxuFinding], width: int, *, wide: bool = False) -> list[str]:
    """The MXU alignment section: a heading, then one wrapped sentence per finding (the first
    :data:`MXU_SHOWN` unless ``wide``); no lines when there is none."""
    if not findings:
        return []
    sizes = sorted({f.mxu for f in findings})
    arrays = ", ".join(f"{n}x{n}" for n in sizes)
    lines = [f"MXU alignment ({arrays} MXU; speed only, not in the verdict)"]
    shown = findings if wide else findings[:MXU_SHOWN]
    for finding in shown:
        lines.extend(_wrapped(_mxu_sentence(finding), width, _INDENT, _INDENT + "    "))
    if len(shown) < len(findings):
        more = len(findings) - len(shown)
        lines.append(f"{_INDENT}(and {more} more: --wide shows them all, --json too)")
    return lines


def _mxu_sentence(finding: MxuFinding) -> str:
    """``~ dot.3 in fusion.2 (model.py:4): [64,100]x[100,200] uses 31% of the MXU;
    [128,128]x[128,256] fills it (5.8M FLOPs of padding)``."""
    where = _clean(finding.node)
    if finding.kernel != finding.node:
        where += f" in {_clean(finding.kernel)}"
    if finding.source:
        where += f" ({short_source(finding.source)})"
    if finding.window > 1:  # a convolution: one product per kernel position
        where += f", {finding.window} window positions"
    return (
        f"{MXU_MARK} {where}: {finding.shape} uses {_percent(finding.use)} of the MXU; "
        f"{finding.padded_shape} fills it ({format_count(finding.wasted_flops)} FLOPs of "
        "padding)"
    )


def _percent(share: float) -> str:
    """``31%``; under 10% with a decimal (``0.2%``: a tiny product is not "0%"), ``<0.1%``."""
    if share >= 0.1:
        return f"{share:.0%}"
    return f"{share:.1%}" if share >= 0.001 else "<0.1%"


def _headline(report: CheckReport, width: int) -> str:
    """``hloscope check: PROGRAM for PLATFORM``; a long path loses its middle, never its end."""
    head, tail = "hloscope check: ", f" for {_clean(report.platform)}"
    room = max(width - len(head) - len(tail), 8)
    return head + shorten_middle(_clean(report.program), room) + tail


def _cells(finding: Finding) -> dict[str, str]:
    dtype = f" {finding.dtype}" if finding.dtype else ""
    return {
        "reason": str(finding.reason),
        "op": _clean(finding.op) + dtype,
        "node": _clean(finding.node) or "-",
        "source": short_source(finding.source),
    }


def _column_widths(findings: Iterable[Finding], width: int | None) -> dict[str, int]:
    """Each column as wide as its widest cell; when they do not all fit in ``width`` (``None``:
    no limit, for ``--wide``), the widest column gives up a character at a time, down to its
    least (:data:`_LEAST`), so the short columns keep their cells whole."""
    widths = dict.fromkeys(_LEAST, 1)
    for finding in findings:
        for column, cell in _cells(finding).items():
            widths[column] = max(widths[column], len(cell))
    if width is None:
        return widths
    budget = width - _FIXED
    while sum(widths.values()) > budget:
        shrinkable = [c for c in widths if widths[c] > _LEAST[c]]
        if not shrinkable:
            break
        widest = max(shrinkable, key=lambda c: widths[c])
        widths[widest] -= 1
    return widths


def _finding_rows(
    finding: Finding, widths: dict[str, int], number: int, width: int | None
) -> tuple[list[str], bool]:
    """One finding's lines (one, or more where a cell wraps) and whether its detail was cut."""
    mark = WARNING_MARK if finding.is_warning else ERROR_MARK
    columns = {c: wrap_name(cell, widths[c]) for c, cell in _cells(finding).items()}
    height = max(len(parts) for parts in columns.values())
    rows = []
    for i in range(height):
        cells = [
            (parts[i] if i < len(parts) else "").ljust(widths[c]) for c, parts in columns.items()
        ]
        lead = f"{_INDENT}{mark} " if i == 0 else _INDENT + "  "
        rows.append(lead + "  ".join(cells))
    tail = f"  [{number}]" if number else ""
    # A finding the compiler confirmed shows the compiler's words, not the static guess.
    said = f"{finding.confirmed_by}: {finding.compiler_message}" if finding.compiler_message else ""
    detail = _clean(said or finding.detail)
    cut = False
    if detail:
        room = None if width is None else width - len(rows[0]) - len(tail) - 2
        if room is None or len(detail) <= room:
            rows[0] += "  " + detail
        elif room >= 20:
            rows[0] += "  " + detail[: room - 1] + ELLIPSIS
            cut = True
        else:
            cut = True
    rows[0] += tail
    return [row.rstrip() for row in rows], cut


#: Characters after which a long name is best broken: the joints of op, target and file names.
_JOINTS = "_.-/$:,"


def wrap_name(text: str, width: int) -> list[str]:
    """``text`` in pieces of at most ``width`` characters, each ending at a joint of the name
    (``_``, ``.``, ``/``...) where one lies in the piece's second half: every character is
    kept, so a long target name wraps instead of losing its middle."""
    width = max(width, 1)
    pieces = []
    while len(text) > width:
        cut = max(text.rfind(joint, width // 2, width) for joint in _JOINTS)
        cut = cut + 1 if cut > 0 else width
        pieces.append(text[:cut])
        text = text[cut:]
    pieces.append(text)
    return pieces


def _wrapped(text: str, width: int, first: str, rest: str) -> list[str]:
    return textwrap.wrap(
        text,
        width=width,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=True,
        break_on_hyphens=False,
    ) or [first.rstrip()]


def render_check(report: CheckReport, out: TextIO, width: int = 100, *, wide: bool = False) -> None:
    """Write :func:`check_lines` to ``out``."""
    for line in check_lines(report, width, wide=wide):
        out.write(line + "\n")

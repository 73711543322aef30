"""Terminal, JSON and CSV output of the fusion report (``hloscope fusions``).

:func:`render_fusions` prints one table row per kernel and the summary under it;
:func:`render_by_source` prints the source view. :func:`run_fusions` is the whole command
behind the thin click layer: load the target, build the report, filter, sort, print.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Sequence, TextIO

from ..analysis.fusions import (
    COLUMNS,
    SOURCE_COLUMNS,
    FusionReport,
    ReportOptionError,
    filter_rows,
    fusion_report,
    load_target,
    rows_to_csv,
    sort_rows,
    source_rows,
)
from ..units import format_bytes, format_count

WIDE = 140  # terminal columns from which the table shows every column

__all__ = ["render_fusions", "render_by_source", "run_fusions", "format_count", "format_bytes"]






def _short_source(source: str) -> str:
    """``/long/path/model.py:12 (f)`` -> ``model.py:12 (f)``: the column stays readable."""
    if not source:
        return ""
    path, sep, rest = source.partition(":")
    return path.rsplit("/", 1)[-1] + sep + rest


# (header, row -> cell text, right-aligned, may fold onto several lines)
_COLUMN_SPECS: dict[str, tuple[str, Any, bool, bool]] = {
    "module": ("module", lambda r: r["module"], False, True),
    "computation": ("computation", lambda r: r["computation"], False, True),
    "kernel": ("kernel", lambda r: r["name"], False, True),
    "kind": ("kind", lambda r: r["kind"] + (f" {r['backend_kind']}" if r["backend_kind"] else ""), False, True),
    "root": ("root", lambda r: r["root"], False, False),
    "ops": ("ops", lambda r: str(r["n_ops"]), True, False),
    "signature": ("signature", lambda r: r["signature"], False, True),
    "in": ("in", lambda r: format_bytes(r["bytes_in"]), True, False),
    "out": ("out", lambda r: format_bytes(r["bytes_out"]), True, False),
    "flops": ("flops", lambda r: format_count(r["flops"]), True, False),
    "transc": ("transc", lambda r: format_count(r["transcendentals"]), True, False),
    "flop/B": ("flop/B", lambda r: "-" if r["intensity"] is None else f"{r['intensity']:.2f}", True, False),
    "source": ("source", lambda r: _short_source(r["source"]) or r["op_name"], False, True),
}
_MIN_FOLDED = 8


def _fit(widths: list[int], foldable: list[bool], available: int) -> list[int]:
    """Shrink the foldable columns, widest first, until the table fits ``available``."""
    widths = list(widths)
    excess = sum(widths) - available
    while excess > 0:
        candidates = [i for i, f in enumerate(foldable) if f and widths[i] > _MIN_FOLDED]
        if not candidates:
            break
        widest = max(candidates, key=lambda i: widths[i])
        second = max((widths[i] for i in candidates if i != widest), default=_MIN_FOLDED)
        cut = min(excess, max(1, widths[widest] - max(second, _MIN_FOLDED)))
        widths[widest] -= cut
        excess -= cut
    return widths


def render_fusions(rows: Sequence[dict[str, Any]], summary: dict[str, Any], console: Any, *,
                   title: str = "", total_rows: int | None = None) -> None:  # fmt: skip
    """A table of kernel rows (as :meth:`Kernel.row` gives them) and the summary.

    Column widths are computed here from the cell texts (rich would measure every cell of a
    thousand-row table again, which takes seconds) and fitted to the terminal by folding the
    text columns; narrow terminals get the essential columns only.
    """
    from rich.table import Table
    from rich.text import Text

    wide = console.width >= WIDE
    names: list[str] = []
    if len({r["module"] for r in rows}) > 1 and wide:
        names.append("module")
    if len({(r["module"], r["computation"]) for r in rows}) > 1:
        names.append("computation")
    names += ["kernel", "kind"] + (["root", "ops"] if wide else [])
    names += ["signature", "in", "out", "flops"] + (["transc", "flop/B"] if wide else []) + ["source"]
    specs = [_COLUMN_SPECS[n] for n in names]
    cells = [[spec[1](r) for spec in specs] for r in rows]
    widths = [max([len(spec[0])] + [len(row[i]) for row in cells]) for i, spec in enumerate(specs)]
    separators = 3 * (len(specs) - 1)
    widths = _fit(widths, [spec[3] for spec in specs], console.width - separators)
    table = Table(title=title or None, title_justify="left", show_edge=False, pad_edge=False)
    for (header, _, right, fold), width in zip(specs, widths):
        table.add_column(header, width=width, justify="right" if right else "left",
                         no_wrap=not fold, overflow="fold")  # fmt: skip
    dim = [i for i, n in enumerate(names) if n == "kind"]
    for r, row in zip(rows, cells):
        texts = [Text(c) for c in row]
        if r["kind"] == "unfused":
            for i in dim:
                texts[i].stylize("dim")
        if not r["source"]:  # the op_name stands in for a missing source line
            texts[-1].stylize("dim")
        table.add_row(*texts)
    console.print(table)
    if total_rows is not None and total_rows > len(rows):
        console.print(Text(f"({len(rows)} of {total_rows} kernels shown)", style="dim"))
    _render_summary(summary, console)


def _render_summary(s: dict[str, Any], console: Any) -> None:
    from rich.text import Text

    kinds = ", ".join(f"{k} {n}" for k, n in s["fusions_by_kind"].items()) or "none"
    unfused = ", ".join(f"{k} {n}" for k, n in s["unfused_by_opcode"].items()) or "none"
    lines = [
        Text.assemble(("kernels ", "dim"), str(s["kernel_count"]), ("  fusions ", "dim"),
                      f"{s['fusion_count']} ({kinds})"),  # fmt: skip
        Text.assemble(("unfused ", "dim"), f"{s['unfused_count']} ({unfused})"),
        Text.assemble(
            ("bytes at kernel boundaries ", "dim"), format_bytes(s["bytes"]),
            ("  (in ", "dim"), format_bytes(s["bytes_in"]), (", out ", "dim"),
            format_bytes(s["bytes_out"]), (")  flops ", "dim"), format_count(s["flops"]),
            ("  transcendentals ", "dim"), format_count(s["transcendentals"]),
        ),  # fmt: skip
    ]
    for note in s["notes"]:
        lines.append(Text("note: " + note, style="yellow"))
    for line in lines:
        console.print(line)


def render_by_source(rows: Sequence[dict[str, Any]], console: Any, *, max_kernels: int = 6) -> None:
    """The source view: for each line, how many ops and which kernels they ended in."""
    from rich.table import Table
    from rich.text import Text

    table = Table(show_edge=False, pad_edge=False)
    table.add_column("source", overflow="fold")
    table.add_column("ops", justify="right")
    table.add_column("kernels", justify="right")
    table.add_column("flops", justify="right")
    table.add_column("in kernels", overflow="fold")
    for r in rows:
        names = r["kernels"][:max_kernels]
        more = len(r["kernels"]) - len(names)
        shown = ", ".join(names) + (f", … {more} more" if more > 0 else "")
        table.add_row(Text(r["source"]), str(r["ops"]), str(r["n_kernels"]),
                      format_count(r["flops"]), Text(shown))  # fmt: skip
    console.print(table)


# ------------------------------------------------------------------------------------------
# The command
# ------------------------------------------------------------------------------------------


def run_fusions(target: str, *, by_source: bool = False, sort: str | None = None,
                filters: Sequence[str] = (), top: int | None = None, as_json: bool = False,
                as_csv: bool = False, out: TextIO | None = None) -> int:  # fmt: skip
    """``hloscope fusions``: print the fusion report of ``target``; return the exit status."""
    out = out if out is not None else sys.stdout
    report: FusionReport = fusion_report(load_target(target))
    if by_source:
        rows = source_rows(report)
        if filters:
            raise ReportOptionError("--filter applies to kernel rows, not to --by-source")
    else:
        rows = filter_rows(report.rows(), filters)
    total = len(rows)
    if sort:
        rows = sort_rows(rows, sort)
    if top is not None:
        rows = rows[: max(top, 0)]
    if as_json:
        json.dump({"rows": rows, "summary": report.summary.to_dict()}, out, indent=2)
        out.write("\n")
    elif as_csv:
        out.write(rows_to_csv(rows, SOURCE_COLUMNS if by_source else COLUMNS))
    else:
        from rich.console import Console

        console = Console(file=out)
        if by_source:
            render_by_source(rows, console)
        else:
            render_fusions(rows, report.summary.to_dict(), console, total_rows=total)
    return 0

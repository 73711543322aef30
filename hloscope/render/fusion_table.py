"""Terminal output of the fusion report (``hloscope fusions``): summary first, then one line
per kernel, fitted to the terminal.

A table that wraps a kernel name over three lines is unreadable, so rows never wrap: the
columns that matter most (kernel, kind, bytes out, FLOPs, source) are always shown, the others
join while they fit, and long names are shortened in the middle (``wrapped_red…dow.1``) to
what the width allows. ``wide=True`` shows every column at full width. Every cell goes through
:func:`~hloscope.render.terminal.printable`; the full values stay in ``--json`` and ``--csv``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..units import format_bytes, format_count
from .rows import summary_notes
from .terminal import printable, shorten_middle

__all__ = ["render_fusions", "render_by_source", "fit_columns", "Column"]


@dataclass(frozen=True, slots=True)
class Column:
    """One table column: its header, how a row becomes its text, and how it may be fitted.

    ``min_width`` is how narrow a shrinkable column may be cut (0: never cut), and
    ``comfortable`` how narrow it may be cut to make room for an optional column; ``shorten``
    cuts a cell to a width (by default in the middle).
    """

    header: str
    cell: Callable[[Mapping[str, Any]], str]
    right: bool = False
    min_width: int = 0
    shorten: Callable[[str, int], str] = shorten_middle
    comfortable: int = 0


def _short_source(source: str) -> str:
    """``/long/path/model.py:12 (f)`` -> ``model.py:12 (f)``: the column stays readable."""
    if not source:
        return ""
    path, sep, rest = source.partition(":")
    return path.rsplit("/", 1)[-1] + sep + rest


def _shorten_source(text: str, width: int) -> str:
    """``model.py:12 (layer_norm)`` loses the function first, then the middle of the file
    name, and keeps the line number as long as it can."""
    if len(text) <= width:
        return text
    where, _, _function = text.partition(" (")
    if len(where) <= width:
        return where
    path, sep, line = where.rpartition(":")
    if sep and line.isdigit() and len(line) + 2 < width:
        return shorten_middle(path, width - len(line) - 1) + ":" + line
    return shorten_middle(where, width)


def _shorten_kind(text: str, width: int) -> str:
    """``kCustom __ynn_fusion`` keeps the fusion kind before the backend's name."""
    if len(text) <= width:
        return text
    kind, _, backend = text.partition(" ")
    if backend and len(kind) + 2 < width:
        return kind + " " + shorten_middle(backend, width - len(kind) - 1)
    return shorten_middle(kind, width)


def _shorten_where(text: str, width: int) -> str:
    """``while.4 body ×50 (while at model.py:12)`` loses its source labels first, outermost
    first (the instruction names and trip counts say where the kernel runs), then the words
    ``condition`` and ``branch`` shrink, then its middle goes."""
    while len(text) > width:
        start = text.find(" (")
        end = text.find(")", start)
        if start < 0 or end < 0:
            break
        text = text[:start] + text[end + 1 :]
    if len(text) > width:
        text = text.replace(" condition ", " cond ").replace(" branch ", " br ")
    return shorten_middle(text, width)


def _kind(row: Mapping[str, Any]) -> str:
    return row["kind"] + (f" {row['backend_kind']}" if row["backend_kind"] else "")


def _intensity(row: Mapping[str, Any]) -> str:
    return "-" if row["intensity"] is None else f"{row['intensity']:.2f}"


KERNEL_COLUMNS: dict[str, Column] = {
    "module": Column("module", lambda r: r["module"], min_width=8),
    "computation": Column("computation", lambda r: r["computation"], min_width=10),
    "where": Column(
        "where", lambda r: r["where"], min_width=14, shorten=_shorten_where, comfortable=20
    ),
    "kernel": Column("kernel", lambda r: r["name"], min_width=14, comfortable=24),
    "kind": Column("kind", _kind, min_width=7, shorten=_shorten_kind, comfortable=12),
    "root": Column("root", lambda r: r["root"], min_width=6),
    "ops": Column("ops", lambda r: str(r["n_ops"]), right=True),
    "signature": Column("signature", lambda r: r["signature"], min_width=10, comfortable=16),
    "in": Column("in", lambda r: format_bytes(r["bytes_in"]), right=True),
    "out": Column("out", lambda r: format_bytes(r["bytes_out"]), right=True),
    "flops": Column("flops", lambda r: format_count(r["flops"]), right=True),
    "transc": Column("transc", lambda r: format_count(r["transcendentals"]), right=True),
    "flop/B": Column("flop/B", _intensity, right=True),
    "source": Column(
        "source",
        lambda r: _short_source(r["source"]) or r["op_name"],
        min_width=20,
        shorten=_shorten_source,
        comfortable=28,
    ),
}
# Always shown, in this order; then the optional ones join, most useful first, while they fit.
_ESSENTIAL = ("kernel", "kind", "out", "flops", "source")
_OPTIONAL = ("in", "signature", "ops", "transc", "flop/B", "root")
# How wide a text column is before fitting: past this a name is shortened even on a wide screen.
_NATURAL_MAX = 48
# Between two columns: a space, the rule, a space.
_GAP = 3


def fit_columns(
    names: Sequence[str],
    natural: Mapping[str, int],
    columns: Mapping[str, Column],
    available: int,
    optional: Sequence[str] = (),
) -> list[tuple[str, int]]:
    """Choose the columns and their widths for a table ``available`` characters wide.

    ``names`` are always shown. Each of ``optional`` joins, in order, when it fits at its
    natural width, making room by cutting the shrinkable columns no further than their
    ``comfortable`` width. Then, if the table is still too wide, shrinkable columns are cut,
    widest first, down to their ``min_width``. Returns ``(name, width)`` in display order.
    """
    widths = {n: natural[n] for n in names}
    comfortable = {n: max(columns[n].min_width, columns[n].comfortable) for n in columns}
    _shrink(widths, _total(widths) - available, comfortable)
    for name in optional:
        excess = _total(widths) + _GAP + natural[name] - available
        slack = sum(max(0, widths[n] - comfortable[n]) for n in widths if columns[n].min_width)
        if excess <= slack:
            _shrink(widths, excess, comfortable)
            widths[name] = natural[name]
    _shrink(widths, _total(widths) - available, {n: c.min_width for n, c in columns.items()})
    order = {n: i for i, n in enumerate(columns)}
    return sorted(widths.items(), key=lambda item: order[item[0]])


def _total(widths: Mapping[str, int]) -> int:
    return sum(widths.values()) + _GAP * (len(widths) - 1)


def _shrink(widths: dict[str, int], excess: int, floor: Mapping[str, int]) -> None:
    """Cut ``excess`` characters from the columns that have a floor, widest first."""
    while excess > 0:
        cuttable = [n for n in widths if floor.get(n, 0) > 0 and widths[n] > floor[n]]
        if not cuttable:
            return
        widest = max(cuttable, key=lambda n: widths[n])
        second = max((widths[n] for n in cuttable if n != widest), default=0)
        cut = min(excess, max(1, widths[widest] - max(floor[widest], second)))
        widths[widest] -= cut
        excess -= cut


def _table(
    rows: Sequence[Mapping[str, Any]],
    columns: Mapping[str, Column],
    essential: Sequence[str],
    optional: Sequence[str],
    width: int,
    wide: bool,
    styles: Callable[[Mapping[str, Any], str], str | None] = lambda row, name: None,
):
    from rich.table import Table
    from rich.text import Text

    shown = [*essential, *optional]
    cells = {n: [printable(columns[n].cell(r)) for r in rows] for n in shown}
    natural = {n: max([len(columns[n].header), *map(len, cells[n])]) for n in shown}
    if wide:
        chosen = [(n, natural[n]) for n in columns if n in natural]
    else:
        capped = {
            n: min(w, _NATURAL_MAX) if columns[n].min_width else w for n, w in natural.items()
        }
        chosen = fit_columns(essential, capped, columns, width, optional)
    table = Table(show_edge=False, pad_edge=False, expand=False)
    for name, w in chosen:
        table.add_column(
            columns[name].header,
            width=w,
            justify="right" if columns[name].right else "left",
            no_wrap=True,
            overflow="crop",
        )
    for i, row in enumerate(rows):
        texts = []
        for name, w in chosen:
            text = Text(columns[name].shorten(cells[name][i], w))
            style = styles(row, name)
            if style:
                text.stylize(style)
            texts.append(text)
        table.add_row(*texts)
    return table, sum(w for _, w in chosen) + _GAP * (len(chosen) - 1)


def _kernel_style(row: Mapping[str, Any], name: str) -> str | None:
    if name == "kind" and row["kind"] == "unfused":
        return "dim"
    if name == "source" and not row["source"]:  # the op_name stands in for a missing line
        return "dim"
    return None


def render_fusions(
    rows: Sequence[dict[str, Any]],
    summary: dict[str, Any],
    console: Any,
    *,
    title: str = "",
    total_rows: int | None = None,
    wide: bool = False,
) -> None:
    """The summary, then a table of kernel rows (as :meth:`Kernel.row` gives them).

    Widths are computed here from the cell texts (rich would measure every cell of a
    thousand-row table again, which takes seconds).
    """
    from rich.text import Text

    if title:
        console.print(Text(printable(title), style="bold"))
    _render_summary(summary, console)
    if not rows:
        return
    essential = list(_ESSENTIAL)
    if any(r.get("where", "entry") != "entry" for r in rows):
        # Loops and branches: where each kernel runs (×trip count), not XLA's region names.
        essential.insert(0, "where")
    elif len({(r["module"], r["computation"]) for r in rows}) > 1:
        essential.insert(0, "computation")
    optional = list(_OPTIONAL)
    if len({r["module"] for r in rows}) > 1:
        optional.insert(0, "module")
    table, needed = _table(
        rows, KERNEL_COLUMNS, essential, optional, console.width, wide, _kernel_style
    )
    console.print()
    _print_table(console, table, needed if wide else 0)
    if total_rows is not None and total_rows > len(rows):
        console.print(Text(f"({len(rows)} of {total_rows} kernels shown)", style="dim"))


def _render_summary(s: Mapping[str, Any], console: Any) -> None:
    from rich.text import Text

    kinds = ", ".join(f"{k} {n}" for k, n in s["fusions_by_kind"].items()) or "none"
    unfused = ", ".join(f"{k} {n}" for k, n in s["unfused_by_opcode"].items()) or "none"
    lines = [
        Text.assemble(
            ("kernels ", "dim"),
            str(s["kernel_count"]),
            ("  fusions ", "dim"),
            f"{s['fusion_count']} ({kinds})",
        ),
        Text.assemble(("unfused ", "dim"), f"{s['unfused_count']} ({unfused})"),
        Text.assemble(
            ("bytes at kernel boundaries ", "dim"),
            format_bytes(s["bytes"]),
            ("  (in ", "dim"),
            format_bytes(s["bytes_in"]),
            (", out ", "dim"),
            format_bytes(s["bytes_out"]),
            (")", "dim"),
        ),
        Text.assemble(
            ("flops ", "dim"),
            format_count(s["flops"]),
            ("  transcendentals ", "dim"),
            format_count(s["transcendentals"]),
        ),
    ]
    lines.extend(_control_flow_lines(s))
    for note in summary_notes(s):
        lines.append(Text("note: " + printable(note), style="yellow"))
    for line in lines:
        console.print(line)


# Loops named in the summary line before "+N more".
_LOOPS_SHOWN = 4


def _control_flow_lines(s: Mapping[str, Any]) -> list[Any]:
    """With loops: what XLA's static totals leave out, the executed totals, and the loops.

    The totals above count each loop body once, as XLA's cost analysis does; one run of the
    module does each body ``trip count`` times, which is what the second line says.
    """
    from rich.text import Text

    loops = s.get("loops") or []
    if not loops:
        return []
    named = [
        f"{loop['name']} \u00d7{loop['trip_count'] if loop['trip_count'] is not None else '?'}"
        + (f" ({loop['label']})" if loop["label"] else "")
        for loop in loops[:_LOOPS_SHOWN]
    ]
    if len(loops) > _LOOPS_SHOWN:
        named.append(f"+{len(loops) - _LOOPS_SHOWN} more")
    lines = [
        Text.assemble(
            ("executed per run ", "dim"),
            ("flops ", "dim"),
            format_count(s["executed_flops"]),
            ("  transcendentals ", "dim"),
            format_count(s["executed_transcendentals"]),
            ("  bytes ", "dim"),
            format_bytes(s["executed_bytes"]),
            ("  (loop bodies \u00d7 trip counts; above: once each, as XLA counts)", "dim"),
        ),
        Text.assemble(("loops ", "dim"), printable(", ".join(named))),
    ]
    unknown = s.get("unknown_trip_counts") or []
    if unknown:
        lines.append(
            Text(
                f"note: {len(unknown)} loop(s) without a known trip count "
                f"({printable(', '.join(unknown[:_LOOPS_SHOWN]))}) count once when executed",
                style="yellow",
            )
        )
    return lines


SOURCE_COLUMNS: dict[str, Column] = {
    "source": Column("source", lambda r: r["source"], min_width=20, shorten=_shorten_source),
    "ops": Column("ops", lambda r: str(r["ops"]), right=True),
    "kernels": Column("kernels", lambda r: str(r["n_kernels"]), right=True),
    "flops": Column("flops", lambda r: format_count(r["flops"]), right=True),
    "in kernels": Column("in kernels", lambda r: ", ".join(r["kernels"]), min_width=12),
}


def render_by_source(rows: Sequence[dict[str, Any]], console: Any, *, wide: bool = False) -> None:
    """The source view: for each line, how many ops and which kernels they ended in."""
    table, needed = _table(rows, SOURCE_COLUMNS, tuple(SOURCE_COLUMNS), (), console.width, wide)
    _print_table(console, table, needed if wide else 0)


def _print_table(console: Any, table: Any, width: int) -> None:
    """Print ``table``, at least ``width`` columns wide (rich would squeeze it to the console)."""
    if width <= console.width:
        console.print(table)
        return
    narrow = console.width
    console.width = width
    try:
        console.print(table)
    finally:
        console.width = narrow

"""Terminal output of the fusion report (``hloscope fusions``): summary first, then one line
per kernel, fitted to the terminal.

A table that wraps a kernel name over three lines is unreadable, so rows never wrap: the
columns that matter most (kernel, kind, bytes out, FLOPs, source) are always shown, the others
join while they fit, and long names are shortened in the middle (``wrapped_red…dow.1``) to
what the width allows. ``wide=True`` shows every column at full width. Every cell goes through
:func:`~hloscope.render.terminal.printable`; the full values stay in ``--json`` and ``--csv``.

A module with collectives gets a second, smaller table under the kernels
(:func:`render_fusion_collectives`): each collective's kind, bytes per device, groups and
runs per call and, with ``--device``, its estimated and exposed seconds, then the step estimate
(:func:`~hloscope.render.step_text.render_step`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..units import format_bytes, format_count
from .sources import short_source, shorten_source
from .table_fit import Column, fit_columns, fitted_table, print_table
from .terminal import printable, shorten_middle

__all__ = [
    "render_fusions",
    "render_by_source",
    "render_fusion_collectives",
    "fit_columns",
    "Column",
    "SORTED_COLUMN",
]


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


def _without_function(source: str) -> str:
    """``model.py:12 (f)`` -> ``model.py:12``: what a source cell keeps before a kernel name
    is shortened for its room."""
    return source.partition(" (")[0]


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
        lambda r: short_source(r["source"]) or r["op_name"],
        min_width=20,
        shorten=shorten_source,
        comfortable=28,
        compact=_without_function,
    ),
}
#: The table column that shows each row key a user may sort by (``--sort bytes_in`` shows
#: ``in``); a key without one gets a column of its own while the table is sorted by it.
SORTED_COLUMN: dict[str, str] = {
    "module": "module",
    "computation": "computation",
    "where": "where",
    "name": "kernel",
    "kind": "kind",
    "backend_kind": "kind",
    "root": "root",
    "n_ops": "ops",
    "signature": "signature",
    "bytes_in": "in",
    "bytes_out": "out",
    "flops": "flops",
    "transcendentals": "transc",
    "intensity": "flop/B",
    "source": "source",
    "op_name": "source",
}


def _sort_key_column(key: str) -> Column:
    """A column for a row key the table does not show by default (``bytes``, ``trip_count``)."""

    def cell(row: Mapping[str, Any]) -> str:
        value = row.get(key)
        if value is None:
            return "-"
        if isinstance(value, bool) or not isinstance(value, int | float):
            return str(value)
        return format_bytes(value) if "bytes" in key else format_count(value)

    numeric = key in ("bytes", "trip_count", "executions")
    return Column(key, cell, right=numeric, min_width=0 if numeric else 8)


# Always shown, in this order; then the optional ones join, most useful first, while they fit.
_ESSENTIAL = ("kernel", "kind", "out", "flops", "source")
_OPTIONAL = ("in", "signature", "ops", "transc", "flop/B", "root")
# Essential columns a narrow terminal may still lose, in this order, rather than cut numbers.
_EXPENDABLE = ("out", "kind", "flops")


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
    sorted_by: str | None = None,
    matched: tuple[int, str] | None = None,
) -> None:
    """The summary, then a table of kernel rows (as :meth:`Kernel.row` gives them).

    ``sorted_by`` (a row key) is a column the table shows whatever the width: the order of the
    rows must be visible. ``matched = (all_kernels, filters)`` says how many kernels the
    filters kept, most of all when they kept none. Widths are computed here from the cell texts
    (rich would measure every cell of a thousand-row table again, which takes seconds).
    """
    from rich.text import Text

    if title:
        console.print(Text(printable(title), style="bold"))
    _render_summary(summary, console)
    if matched is not None:
        all_kernels, filters = matched
        kept = len(rows) if total_rows is None else total_rows
        console.print(
            Text(f"{kept} of {all_kernels} kernels match {printable(filters)}", style="dim")
        )
    if not rows:
        return
    columns, essential, optional, expendable = _layout(rows, sorted_by)
    table, needed = fitted_table(
        rows,
        columns,
        essential,
        optional,
        console.width,
        wide,
        _kernel_style,
        expendable=expendable,
    )
    console.print()
    print_table(console, table, needed if wide else 0)
    if total_rows is not None and total_rows > len(rows):
        console.print(Text(f"({len(rows)} of {total_rows} kernels shown)", style="dim"))


def _layout(
    rows: Sequence[dict[str, Any]], sorted_by: str | None
) -> tuple[dict[str, Column], list[str], list[str], list[str]]:
    """The table's columns, the essential and optional ones, and the essential ones a narrow
    terminal may still lose: ``sorted_by`` always shows, and where kernels run when they are
    not all in the entry computation."""
    columns = dict(KERNEL_COLUMNS)
    essential = list(_ESSENTIAL)
    if sorted_by is not None:
        shown = SORTED_COLUMN.get(sorted_by)
        if shown is None:  # a column of its own, right after the kernel's name
            shown = sorted_by
            names = list(columns)
            at = names.index("kernel") + 1
            extra = {shown: _sort_key_column(sorted_by)}
            columns = {n: columns[n] for n in names[:at]} | extra
            columns |= {n: KERNEL_COLUMNS[n] for n in names[at:]}
        if shown not in essential:
            essential.insert(1, shown)
    if any(r.get("where", "entry") != "entry" for r in rows):
        # Loops and branches: where each kernel runs (×trip count), not XLA's region names.
        essential.insert(0, "where")
    elif len({(r["module"], r["computation"]) for r in rows}) > 1:
        essential.insert(0, "computation")
    optional = [name for name in _OPTIONAL if name not in essential]
    if len({r["module"] for r in rows}) > 1 and "module" not in essential:
        optional.insert(0, "module")
    # Past 80 columns with a loop's `where` and a sorted column, something must go: the output
    # bytes first, then the kind; never the sorted column.
    sorted_column = SORTED_COLUMN.get(sorted_by, sorted_by) if sorted_by is not None else None
    expendable = [n for n in _EXPENDABLE if n != sorted_column and n in essential]
    return columns, essential, optional, expendable


def _figures(*parts: str) -> Any:
    """One line of figures and their labels, ``label, figure, label, figure, ...``: the
    labels dim, the figures plain."""
    from rich.text import Text

    return Text.assemble(*((p, "dim") if i % 2 == 0 else p for i, p in enumerate(parts)))


def _render_summary(s: Mapping[str, Any], console: Any) -> None:
    from rich.text import Text

    kinds = ", ".join(f"{k} {n}" for k, n in s["fusions_by_kind"].items()) or "none"
    unfused = ", ".join(f"{k} {n}" for k, n in s["unfused_by_opcode"].items()) or "none"
    lines = [
        _figures(
            "kernels ", str(s["kernel_count"]), "  fusions ", f"{s['fusion_count']} ({kinds})"
        ),
        _figures("unfused ", f"{s['unfused_count']} ({unfused})"),
        _figures(
            "bytes at kernel boundaries ",
            format_bytes(s["bytes"]),
            "  (in ",
            format_bytes(s["bytes_in"]),
            ", out ",
            format_bytes(s["bytes_out"]),
            ")",
        ),
        _figures(
            "flops ",
            format_count(s["flops"]),
            "  transcendentals ",
            format_count(s["transcendentals"]),
        ),
    ]
    lines.extend(_tpu_lines(s))
    lines.extend(_control_flow_lines(s))
    for note in s["notes"]:
        lines.append(Text("note: " + printable(note), style="yellow"))
    for line in lines:
        console.print(line)


def _tpu_lines(s: Mapping[str, Any]) -> list[Any]:
    """A TPU module's bytes through HBM (the rest of the bytes stay on chip, in VMEM or SMEM)
    and its prefetches (asynchronous copies between HBM and VMEM, not counted as unfused)."""
    if s.get("hbm_bytes") is None:
        return []
    return [
        _figures(
            "bytes through HBM ",
            format_bytes(s["hbm_bytes"]),
            "  (the rest on chip)  prefetches ",
            str(s.get("prefetch_count") or 0),
            " (async HBM<->VMEM moves)",
        )
    ]


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
        _figures(
            "executed per run flops ",
            format_count(s["executed_flops"]),
            "  transcendentals ",
            format_count(s["executed_transcendentals"]),
            "  bytes ",
            format_bytes(s["executed_bytes"]),
            "  (loop bodies \u00d7 trip counts; above: once each, as XLA counts)",
        ),
        _figures("loops ", printable(", ".join(named))),
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
    "source": Column(
        "source", lambda r: short_source(r["source"]), min_width=20, shorten=shorten_source
    ),
    "ops": Column("ops", lambda r: str(r["ops"]), right=True),
    "kernels": Column("kernels", lambda r: str(r["n_kernels"]), right=True),
    "flops": Column("flops", lambda r: format_count(r["flops"]), right=True),
    "in kernels": Column(
        "in kernels", lambda r: ", ".join(r["kernels"]), min_width=12, comfortable=24, wrap=True
    ),
}


def render_by_source(rows: Sequence[dict[str, Any]], console: Any, *, wide: bool = False) -> None:
    """The source view: for each line, how many ops and which kernels they ended in."""
    table, needed = fitted_table(
        rows, SOURCE_COLUMNS, tuple(SOURCE_COLUMNS), (), console.width, wide
    )
    print_table(console, table, needed if wide else 0)


def _seconds(key: str) -> Any:
    from .collectives_text import format_seconds

    return lambda r: format_seconds(r[key])


COLLECTIVE_COLUMNS: dict[str, Column] = {
    "kind": Column("collective", lambda r: r["kind"] + (" (async)" if r["async"] else "")),
    "bytes": Column("bytes", lambda r: format_bytes(r["bytes"]), right=True),
    "groups": Column("groups", lambda r: f"{r['group_size']}x{r['num_groups']}", right=True),
    "runs": Column("runs", lambda r: str(r["executions"]), right=True),
    "estimate": Column("estimate", _seconds("estimate_s"), right=True),
    "exposed": Column("exposed", _seconds("exposed_s"), right=True),
    "kernel": Column("kernel", lambda r: r["name"], min_width=10, comfortable=16),
    "where": Column(
        "where", lambda r: r["where"], min_width=12, shorten=_shorten_where, comfortable=16
    ),
    "source": Column(
        "source",
        lambda r: short_source(r["source"]) or r["op_name"],
        min_width=16,
        shorten=shorten_source,
        comfortable=24,
    ),
}


def render_fusion_collectives(
    communication: Mapping[str, Any], console: Any, *, wide: bool = False
) -> None:
    """The collectives under the kernel table (``communication`` is
    :meth:`~hloscope.analysis.step_estimate.ModuleCommunication.to_dict`): their totals, a row
    per collective, and the step estimate when a device priced them."""
    from rich.text import Text

    from .step_text import render_step

    totals = communication["communication"]
    rows = communication["collectives"]
    priced = totals["device"] is not None
    _collective_totals(totals, bool(rows), console)
    if rows:
        essential = ["kind", "bytes", "groups", *(["estimate"] if priced else []), "kernel"]
        optional = ["runs", *(["exposed"] if priced else []), "source"]
        if any(r["where"] for r in rows):
            optional.insert(0, "where")
        table, needed = fitted_table(
            rows, COLLECTIVE_COLUMNS, essential, optional, console.width, wide
        )
        print_table(console, table, needed if wide else 0)
    step = communication.get("step")
    if step is not None:
        console.print()
        for line in render_step(step, totals["devices"]).splitlines():
            console.print(Text(line))
    elif not priced:
        console.print(Text("(--device NAME prices them and estimates the step)", style="dim"))


def _collective_totals(totals: Mapping[str, Any], rows: bool, console: Any) -> None:
    """The collectives' count and bytes, and their time on the device that priced them."""
    from rich.text import Text

    from .collectives_text import format_seconds

    priced = totals["device"] is not None
    console.print()
    if not rows:
        console.print(Text("no collectives", style="dim"))
    else:
        console.print(
            _figures(
                "collectives ",
                str(totals["count"]),
                "  bytes per device ",
                format_bytes(totals["bytes"]),
                "  executed per call ",
                format_bytes(totals["executed_bytes"]),
            )
        )
    if priced and rows:
        console.print(
            _figures(
                f"communication on {printable(totals['device'])} ",
                format_seconds(totals["estimate_s"]),
                "  exposed ",
                format_seconds(totals["exposed_s"]),
            )
        )

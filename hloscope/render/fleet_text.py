"""The ``hloscope fleet`` tables: one row per module, and a fleet's regressions against a
baseline.

Both fit the terminal (``COLUMNS``, else 80 when piped) with the one table engine,
:mod:`hloscope.render.table_fit`: the label, function and the numbers a fleet is read for
(kernels, bytes, peak memory) always show, the others join while they fit, and long labels
are cut in the middle. Every name comes from files other programs wrote and goes through
:func:`~hloscope.render.terminal.printable`. A module that failed shows ``error`` in its
numbers' cells; its one-line error goes to stderr (the command prints it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from ..units import format_bytes, format_count
from .table_fit import Column, fitted_table, print_table
from .terminal import printable

if TYPE_CHECKING:  # pragma: no cover
    from ..fleet import Metric, PairDelta, Regressions

__all__ = ["FLEET_COLUMNS", "REGRESSION_COLUMNS", "render_fleet", "render_regressions"]


def _text(key: str) -> Any:
    return lambda r: r[key]


#: The fleet table's columns; the cells come from :func:`_fleet_cells`.
FLEET_COLUMNS: dict[str, Column] = {
    "label": Column("label", _text("label"), min_width=8, comfortable=14),
    "function": Column("function", _text("function"), min_width=8, comfortable=14),
    "compiles": Column("compiles", _text("compiles"), right=True),
    "id": Column("id", _text("id"), right=True),
    "kernels": Column("kernels", _text("kernels"), right=True),
    "fusions": Column("fusions", _text("fusions"), right=True),
    "bytes": Column("bytes", _text("bytes"), right=True),
    "flops": Column("FLOPs", _text("flops"), right=True),
    "peak": Column("peak mem", _text("peak"), right=True),
    "collectives": Column("coll bytes", _text("collectives"), right=True),
    "instructions": Column("instrs", _text("instructions"), right=True),
    "module": Column("module", _text("module"), min_width=10, comfortable=16),
}
_FLEET_ESSENTIAL = ("label", "function", "kernels", "bytes", "peak")
_FLEET_OPTIONAL = ("compiles", "id", "flops", "fusions", "collectives", "instructions", "module")


def _number(row: Mapping[str, Any], key: str, fmt: Any) -> str:
    if row.get("error") is not None:
        return "error"
    value = row.get(key)
    return "-" if value is None else fmt(value)


def _fleet_cells(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    cells = []
    previous: tuple[Any, Any] | None = None
    for row in rows:
        # A function's compiles are listed one under another, a dump's functions too: each
        # name is said once, where its group starts.
        key = (row["dump"], row["function"])
        first = key != previous
        new_dump = previous is None or previous[0] != row["dump"]
        previous = key
        peak = _number(row, "peak_bytes", format_bytes)
        if peak not in ("error", "-") and row.get("memory_source") == "simulated":
            peak += "*"
        cells.append(
            {
                "label": row["label"] if new_dump else "",
                "function": row["function"] if first else "",
                "compiles": f"{row['compiles']}×" if first and row["compiles"] > 1 else "",
                "id": str(row["id"]),
                "module": row["module"],
                "kernels": _number(row, "kernels", lambda n: f"{n:,}"),
                "fusions": _number(row, "fusions", lambda n: f"{n:,}"),
                "bytes": _number(row, "bytes", format_bytes),
                "flops": _number(row, "flops", format_count),
                "peak": peak,
                "collectives": _number(row, "collective_bytes", format_bytes),
                "instructions": _number(row, "instructions", lambda n: f"{n:,}"),
                "_error": row.get("error") is not None,
            }
        )
    return cells


def _fleet_style(cell: Mapping[str, Any], column: str) -> str | None:
    if cell["_error"] and column not in ("label", "function", "id", "module"):
        return "red"
    if column == "compiles":
        return "yellow"
    return None


def render_fleet(
    rows: Sequence[Mapping[str, Any]], console: Console | None = None, *, wide: bool = False
) -> None:
    """The fleet's rows as one table, and a line of totals under it."""
    console = console or Console()
    cells = _fleet_cells(rows)
    table, needed = fitted_table(
        cells, FLEET_COLUMNS, _FLEET_ESSENTIAL, _FLEET_OPTIONAL, console.width, wide, _fleet_style
    )
    print_table(console, table, needed if wide else 0)
    console.print(Text(_fleet_totals(rows), style="dim"))
    if any(c["peak"].endswith("*") for c in cells):
        console.print(Text("* no buffer assignment dumped: simulated peak", style="dim"))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _fleet_totals(rows: Sequence[Mapping[str, Any]]) -> str:
    dumps = len({r["dump"] for r in rows})
    failed = sum(1 for r in rows if r.get("error") is not None)
    text = f"{_plural(len(rows), 'module')} in {_plural(dumps, 'dump')}"
    return text + (f", {failed} failed" if failed else "")


# --------------------------------------------------------------------------------------------
# Regressions
# --------------------------------------------------------------------------------------------

#: The regressions table's columns; the cells come from :func:`_pair_cells`.
REGRESSION_COLUMNS: dict[str, Column] = {
    "label": Column("label", _text("label"), min_width=8, comfortable=14),
    "function": Column("function", _text("function"), min_width=8, comfortable=14),
    "status": Column("status", _text("status")),
    "compiles": Column("compiles", _text("compiles"), right=True),
    "kernels": Column("kernels", _text("kernels"), right=True),
    "bytes": Column("bytes", _text("bytes"), right=True),
    "flops": Column("FLOPs", _text("flops"), right=True),
    "peak": Column("peak mem", _text("peak"), right=True),
}
_PAIR_ESSENTIAL = ("label", "function", "bytes", "peak")
_PAIR_OPTIONAL = ("kernels", "flops", "compiles", "status")


def _percent(value: float | None) -> str:
    if value is None:
        return ""
    if value == math.inf:
        return "new"  # grew from nothing
    return "=" if value == 0 else f"{value:+.1f}%"


def _change(pair: PairDelta, metric: Metric) -> str:
    """``12→14`` for counts (the numbers are small and both matter)."""
    old = pair.old[metric] if pair.old is not None else None
    new = pair.new[metric] if pair.new is not None else None
    if old is None or new is None:
        return str(old if new is None else new)
    return str(new) if old == new else f"{old}→{new}"


def _pair_cells(pairs: Iterable[PairDelta], failing: set[tuple[str, str, str]]):  # noqa: ANN202
    from ..fleet import Metric

    cells = []
    for pair in pairs:
        cell: dict[str, Any] = {
            "label": pair.label,
            "function": pair.function,
            "status": pair.status.value,
            "compiles": _change(pair, Metric.COMPILES),
            "kernels": _change(pair, Metric.KERNELS),
            "bytes": _percent(pair.percent(Metric.BYTES)),
            "flops": _percent(pair.percent(Metric.FLOPS)),
            "peak": _percent(pair.percent(Metric.PEAK)),
            "_failing": {m for (label, fn, m) in failing if (label, fn) == pair.key},
        }
        cells.append(cell)
    return cells


def _pair_style(cell: Mapping[str, Any], column: str) -> str | None:
    name = {"peak": "peak", "bytes": "bytes", "flops": "flops", "kernels": "kernels"}.get(column)
    if name is not None and name in cell["_failing"]:
        return "bold red"
    if column == "status" and cell["status"] in ("added", "removed"):
        return "yellow"
    return None


def render_regressions(
    result: Regressions,
    failures: Sequence[tuple[PairDelta, Metric, float]] = (),
    threshold: float | None = None,
    console: Console | None = None,
    *,
    wide: bool = False,
) -> None:
    """The pairs that changed against the baseline (growth in percent of the baseline), a
    line counting them all, and one line per failed check."""
    console = console or Console()
    changed = result.changed
    failing = {(p.label, p.function, m.value) for p, m, _ in failures}
    console.print(Text("against the baseline", style="bold"))
    if changed:
        cells = _pair_cells(changed, failing)
        table, needed = fitted_table(
            cells,
            REGRESSION_COLUMNS,
            _PAIR_ESSENTIAL,
            _PAIR_OPTIONAL,
            console.width,
            wide,
            _pair_style,
        )
        print_table(console, table, needed if wide else 0)
    console.print(Text(_pair_totals(result), style="dim"))
    for pair, metric, pct in failures:
        grown = "from 0" if pct == math.inf else f"{pct:+.1f}%"
        limit = f" (more than {threshold:g}%)" if threshold is not None else ""
        console.print(
            Text(
                f"regression: {printable(pair.label)} {printable(pair.function)}: "
                f"{metric.value} {grown}{limit}"
            ),
            style="red",
        )


def _pair_totals(result: Regressions) -> str:
    counts: dict[str, int] = {}
    for p in result.pairs:
        counts[p.status.value] = counts.get(p.status.value, 0) + 1
    parts = [f"{n} {status}" for status, n in counts.items()]
    return f"{_plural(len(result.pairs), 'function')} paired by label: " + ", ".join(parts)

"""The ``hloscope ls`` table: one row per module, modules of one function together.

A function compiled more than once gets "N×" in the compiles column of its first row and its later
compilations right below it, so recompiles stand out. Memory is XLA's live-range peak, or the
total allocated bytes (marked ``*``) when no live range was dumped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..units import format_bytes
from .table_fit import Column, fitted_table, print_table
from .terminal import printable

if TYPE_CHECKING:  # pragma: no cover
    from ..dump.listing import Listing, ListingRow

__all__ = ["render_listing", "listing_table", "LISTING_COLUMNS"]


def _peak(row: ListingRow) -> str:
    if row.memory.peak_bytes is None:
        return "-"
    marker = "" if row.memory.peak_source == "live-range" else "*"
    return format_bytes(row.memory.peak_bytes) + marker


def _count_or_error(row: ListingRow, n: int | None) -> str:
    return "error" if row.failed and n is None else _count(n)


#: The columns of ``hloscope ls``; the cells come from :func:`_cells`.
LISTING_COLUMNS: dict[str, Column] = {
    "function": Column("function", lambda r: r["function"], min_width=10, comfortable=16),
    "compiles": Column("compiles", lambda r: r["compiles"], right=True),
    "id": Column("id", lambda r: r["id"], right=True),
    "module": Column("module", lambda r: r["module"], min_width=12, comfortable=20),
    "stages": Column("stages", lambda r: r["stages"]),
    "instrs": Column("instrs", lambda r: r["instrs"], right=True),
    "fusions": Column("fusions", lambda r: r["fusions"], right=True),
    "on disk": Column("on disk", lambda r: r["on disk"], right=True),
    "peak mem": Column("peak mem", lambda r: r["peak mem"], right=True),
}
# Always shown; the others join, in this order, while they fit the terminal. The module's name
# says nothing new where it is the function's with JAX's "jit_" before it: then it is the
# first to go, and the stages (which show the pass snapshots) stay.
_ESSENTIAL = ("function", "compiles", "id", "module", "instrs", "peak mem")
_OPTIONAL = ("stages", "fusions", "on disk")


def _module_name_adds_nothing(row: ListingRow) -> bool:
    name = row.module.name or ""
    return name in (row.function, f"jit_{row.function}", f"jit__{row.function}")


def _cells(rows: list[ListingRow]) -> list[dict[str, object]]:
    cells = []
    for row in rows:
        m = row.module
        first = row.compile_number == 1
        cells.append(
            {
                "function": row.function if first else "",
                "compiles": f"{row.compiles}×" if first and row.compiles > 1 else "",
                "id": str(m.id),
                "module": m.name or "?",
                "stages": m.stage_summary(),
                "instrs": _count_or_error(row, row.instructions),
                "fusions": _count_or_error(row, row.fusions),
                "on disk": format_bytes(m.size_on_disk),
                "peak mem": _peak(row),
                "_recompiled": row.compiles > 1,
            }
        )
    return cells


def _style(cell: Mapping[str, object], column: str) -> str | None:
    if column == "function" and cell["_recompiled"]:
        return "bold"
    if column == "compiles":
        return "yellow"
    if cell.get(column) == "error":
        return "red"
    return None


def listing_table(
    listing: Listing,
    rows: list[ListingRow] | None = None,
    *,
    width: int = 80,
    wide: bool = False,
) -> tuple[Table, int]:
    """The table of ``rows`` (default: all rows of ``listing``) fitted to ``width``, and the
    width it needs (see :func:`~hloscope.render.table_fit.fitted_table`)."""
    rows = listing.rows if rows is None else rows
    cells = _cells(rows)

    def ends_group(i: int) -> bool:
        last_of_group = i + 1 == len(rows) or rows[i + 1].compile_number == 1
        return last_of_group and rows[i].compiles > 1

    essential, optional = list(_ESSENTIAL), list(_OPTIONAL)
    if rows and all(map(_module_name_adds_nothing, rows)):
        essential.remove("module")
        optional.append("module")
    return fitted_table(
        cells, LISTING_COLUMNS, essential, optional, width, wide, _style, ends_group
    )


def _count(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


def render_listing(
    listing: Listing,
    out: TextIO | None = None,
    console: Console | None = None,
    *,
    wide: bool = False,
) -> None:
    """The listing, fitted to the console's width (``COLUMNS``, else the terminal's, else 80
    when piped, as rich decides for every command); ``wide`` shows every column in full."""
    if console is None:
        console = Console(file=out)
    index = listing.index
    console.print(Text.assemble(("dump ", "dim"), (printable(str(index.root)), "bold")))
    folders: dict[str, list] = {}
    for row in listing.rows:
        folders.setdefault(row.module.folder, []).append(row)
    for folder, rows in folders.items():
        # A parent of several dumps: one table per subfolder, since ids restart in each.
        if folder:
            console.print(Text(printable(folder + "/"), style="bold"))
        table, needed = listing_table(listing, rows, width=console.width, wide=wide)
        print_table(console, table, needed if wide else 0)
    functions = index.functions.values()
    recompiled = sum(1 for f in functions if f.compiles > 1)
    parts = [
        f"{len(index.modules)} module{'s' if len(index.modules) != 1 else ''}",
        f"{len(index.functions)} function{'s' if len(index.functions) != 1 else ''}"
        + (f" ({recompiled} compiled more than once)" if recompiled else ""),
    ]
    if index.unknown_files:
        parts.append(
            f"{len(index.unknown_files)} other file{'s' if len(index.unknown_files) != 1 else ''}"
        )
    if listing.errors:
        parts.append(f"{len(listing.errors)} unreadable")
    console.print(Text(", ".join(parts), style="dim"))
    if any(r.memory.peak_source == "total-allocated" for r in listing.rows):
        console.print(
            Text("* no live range dumped: total allocated bytes instead of the peak", style="dim")
        )

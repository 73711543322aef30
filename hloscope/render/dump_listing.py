"""The ``hloscope ls`` table: one row per module, modules of one function together.

A function compiled more than once gets "N×" in the compiles column of its first row and its later
compilations right below it, so recompiles stand out. Memory is XLA's live-range peak, or the
total allocated bytes (marked ``*``) when no live range was dumped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..units import format_bytes
from .terminal import printable

if TYPE_CHECKING:  # pragma: no cover
    from ..dump.listing import Listing, ListingRow

__all__ = ["render_listing", "listing_table"]


def listing_table(
    listing: Listing, rows: list[ListingRow] | None = None, title: str | None = None
) -> Table:
    """The table of ``rows`` (default: all rows of ``listing``)."""
    table = Table(
        show_edge=False, pad_edge=False, header_style="bold", title=title, title_justify="left"
    )
    table.add_column("function", no_wrap=True, overflow="ellipsis", max_width=28)
    table.add_column("compiles", no_wrap=True, justify="right")
    table.add_column("id", no_wrap=True, justify="right")
    table.add_column("module", no_wrap=True, overflow="ellipsis", max_width=40)
    table.add_column("stages", no_wrap=True)
    table.add_column("instrs", no_wrap=True, justify="right")
    table.add_column("fusions", no_wrap=True, justify="right")
    table.add_column("on disk", no_wrap=True, justify="right")
    table.add_column("peak mem", no_wrap=True, justify="right")
    rows = listing.rows if rows is None else rows
    for i, row in enumerate(rows):
        m = row.module
        first = row.compile_number == 1
        last_of_group = i + 1 == len(rows) or rows[i + 1].compile_number == 1
        function = Text(
            printable(row.function) if first else "", style="bold" if row.compiles > 1 else ""
        )
        compiles = ""
        if first and row.compiles > 1:
            compiles = Text(f"{row.compiles}×", style="yellow")
        failed = Text("error", style="red")
        instrs = failed if row.failed and row.instructions is None else _count(row.instructions)
        fusions = failed if row.failed and row.fusions is None else _count(row.fusions)
        peak = "-"
        if row.memory.peak_bytes is not None:
            peak = format_bytes(row.memory.peak_bytes) + (
                "" if row.memory.peak_source == "live-range" else "*"
            )
        table.add_row(
            function,
            compiles,
            str(m.id),
            Text(printable(m.name or "?")),
            Text(m.stage_summary()),
            instrs,
            fusions,
            format_bytes(m.size_on_disk),
            peak,
            end_section=last_of_group and row.compiles > 1,
        )
    return table


def _count(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


def render_listing(
    listing: Listing, out: TextIO | None = None, console: Console | None = None
) -> None:
    if console is None:
        console = Console(file=out)
        if not console.is_terminal:  # piped or redirected: keep whole rows, never fold them
            console = Console(file=out, width=max(console.width, 160))
    index = listing.index
    console.print(Text.assemble(("dump ", "dim"), (printable(str(index.root)), "bold")))
    folders: dict[str, list] = {}
    for row in listing.rows:
        folders.setdefault(row.module.folder, []).append(row)
    for folder, rows in folders.items():
        # A parent of several dumps: one table per subfolder, since ids restart in each.
        title = printable(folder + "/") if folder else None
        console.print(listing_table(listing, rows, title=title))
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

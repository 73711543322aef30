"""The ``hloscope cache ls`` table: one row per cached capture, newest first.

A script's path is what tells two entries apart, so it is never cut: a long path folds onto
more lines at the terminal's width (``--wide`` keeps each entry on one line).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..units import format_bytes
from .table_fit import Column, fitted_table, print_table
from .terminal import printable

if TYPE_CHECKING:  # pragma: no cover
    from ..capture.cache import CachedFiles, CacheEntry

__all__ = ["render_cache_listing", "CACHE_COLUMNS"]

CACHE_COLUMNS: dict[str, Column] = {
    "target": Column("target", lambda r: r["target"], min_width=16, wrap=True),
    "args": Column("args", lambda r: r["args"], min_width=6, wrap=True),
    "captured": Column("captured", lambda r: r["captured"]),
    "size": Column("size", lambda r: r["size"], right=True),
    "state": Column("state", lambda r: r["state"]),
}


def _cells(entries: Sequence[CacheEntry]) -> list[dict[str, str]]:
    return [
        {
            "target": e.script + (f":{e.function}" if e.function else ""),
            "args": " ".join(e.args),
            "captured": e.start_time[:19].replace("T", " "),
            "size": format_bytes(e.size),
            "state": "failed" if not e.ok else ("fresh" if e.fresh else "stale"),
        }
        for e in entries
    ]


def _style(row: Mapping[str, Any], column: str) -> str | None:
    if column == "state":
        return {"fresh": "green", "stale": "yellow", "failed": "red"}[row["state"]]
    return None


def render_cache_listing(
    root: str,
    entries: Sequence[CacheEntry],
    console: Any,
    *,
    wide: bool = False,
    others: Sequence[CachedFiles] = (),
) -> None:
    """The cache folder and its entries, fitted to the console (``wide``: one line each), and
    a line for what else it keeps (``others``)."""
    from rich.text import Text

    count = f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
    console.print(Text.assemble(("cache ", "dim"), printable(root), f": {count}"))
    if others:
        kept = ", ".join(f"{c.phrase()} ({format_bytes(c.size)})" for c in others)
        console.print(Text.assemble(("also ", "dim"), kept))
    if not entries:
        return
    table, needed = fitted_table(
        _cells(entries), CACHE_COLUMNS, tuple(CACHE_COLUMNS), (), console.width, wide, _style
    )
    print_table(console, table, needed if wide else 0)

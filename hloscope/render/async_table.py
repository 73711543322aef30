"""The table of async pairs (a copy or collective from its start to its done) that bench and
profile print under their kernels: each pair's span per step, how much of it other kernels hid
and how much was exposed. Their transfer has no roofline (see
:mod:`hloscope.analysis.op_profile.overlap`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..units import format_bytes, format_duration
from .table_fit import Column, fitted_table, print_table

__all__ = ["print_async_table"]


def _columns(percent: Callable[[float | None], str]) -> dict[str, Column]:
    return {
        "pair": Column("async pair", lambda r: r["start"], min_width=12, comfortable=22),
        "op": Column("op", lambda r: r["opcode"] or "-", min_width=6, comfortable=12),
        "span": Column("span/step", lambda r: format_duration(r["span_s"]), right=True),
        "hidden": Column("hidden", lambda r: format_duration(r["hidden_s"]), right=True),
        "exposed": Column("exposed", lambda r: format_duration(r["exposed_s"]), right=True),
        "share": Column("hidden %", lambda r: percent(r["hidden_share"]), right=True),
        "bytes": Column(
            "bytes", lambda r: "-" if r["bytes"] is None else format_bytes(r["bytes"]), right=True
        ),
        "n": Column("pairs", lambda r: str(r["pairs"]), right=True),
    }


def print_async_table(
    console: Any,
    rows: Sequence[Mapping[str, Any]],
    total: int,
    optional: Sequence[str],
    wide: bool,
    percent: Callable[[float | None], str],
) -> None:
    """``rows`` (``Overlap.row()``, the first of ``total`` pairs) fitted to the console: the
    pair and its times always, the ``optional`` columns (``share``, ``bytes``, ``op``, ``n``)
    while they fit; ``percent`` writes the hidden share."""
    from rich.text import Text

    table, needed = fitted_table(
        rows,
        _columns(percent),
        ("pair", "span", "hidden", "exposed"),
        optional,
        console.width,
        wide,
    )
    print_table(console, table, needed if wide else 0)
    if len(rows) < total:
        console.print(Text(f"({len(rows)} of {total} async pairs shown)", style="dim"))

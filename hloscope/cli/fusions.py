"""``hloscope fusions TARGET``: the kernels XLA made of a module, as a table, JSON or CSV."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from ._app import CliError, cli
from ._device import device_option
from ._output import Format, json_option, output_format, per_module, show
from ._target import (
    all_modules_option,
    module_option,
    open_modules,
    opened_fields,
    refresh_option,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..devices import DeviceSpec
    from ..hlo.model import Module

__all__ = ["fusions_command", "TABLE_ROWS"]

#: The most rows the table shows unless --top says otherwise.
TABLE_ROWS = 500
#: What ``--top N`` ranks by without ``--sort``, the first column the rows have: a kernel's
#: bytes (fusions times nothing; a memory-bound kernel's time follows its bytes), a source
#: line's FLOPs. Never the schedule's order: the top N are the heaviest N.
TOP_RANKS = ("bytes", "flops")


@cli.command("fusions")
@click.argument("target")
@click.option(
    "--by-source", is_flag=True, help="One row per source line: the kernels its ops ended in."
)
@click.option(
    "--sort",
    metavar="COL",
    help="Sort by a column (bytes, flops, intensity, name...; numbers largest first, "
    "'-COL' flips).",
)
@click.option(
    "--filter",
    "filters",
    metavar="EXPR",
    multiple=True,
    help="Keep rows where EXPR holds: kind=kLoop, opcode=dot (a dot fused or not), flops>1e6, "
    "'bytes > 10KiB', source~model.py (text compared without case). Repeat to AND.",
)
@click.option(
    "--top",
    type=click.IntRange(min=0),
    metavar="N",
    help=f"Show the N heaviest rows: by --sort's column, else by bytes (per source line: "
    f"FLOPs). The table shows at most {TABLE_ROWS} unless --top says otherwise; --json and "
    "--csv give every row.",
)
@json_option(
    "Print JSON: {module, rows, summary}; a module with collectives (or any, with "
    "--device) adds collectives (one row each), communication (totals) and step."
)
@click.option("--csv", "as_csv", is_flag=True, help="Print the rows as CSV.")
@click.option(
    "--wide",
    is_flag=True,
    help="Show every column at full width (by default the table fits the terminal).",
)
@device_option(
    "Price the collectives on this device and estimate the step: compute on its roofline plus "
    "the communication no compute hides.",
    needs="interconnect",
)
@module_option
@all_modules_option
@refresh_option
def fusions_command(
    target: str,
    by_source: bool,
    sort: str | None,
    filters: tuple[str, ...],
    top: int | None,
    as_json: bool,
    as_csv: bool,
    wide: bool,
    device: DeviceSpec | None,
    module: str | None,
    all_modules: bool,
    refresh: bool,
) -> None:
    """Show the kernels XLA made of TARGET's optimized module: each fusion and each op left
    unfused, with its kind, fused ops, bytes in and out, FLOPs and the source lines it came
    from. The totals under the table follow XLA's own cost analysis. Collectives follow the
    table, with their bytes and, with --device, their estimated time and the step's."""
    from ..analysis.fusions import COLUMNS, SOURCE_COLUMNS, read_bodies_in_children

    read_bodies_in_children()  # a forked parse's children send what the report reads

    chosen = output_format(as_json, as_csv)
    if by_source and filters:
        raise CliError("--filter applies to kernel rows, not to --by-source")
    modules = open_modules(
        target, module=module, all_modules=all_modules, refresh=refresh, device=device
    )
    table = _Table(by_source, filters, sort, top, capped=chosen is Format.TEXT)
    shown = [table.of(each, device) for each in modules]
    show(
        chosen,
        json=lambda: per_module(_payloads(shown), all_modules),
        csv=lambda: (
            [row for each in shown for row in each.rows],
            SOURCE_COLUMNS if by_source else COLUMNS,
        ),
        text=lambda: _print_text(shown, table, all_modules, wide),
    )


@dataclass
class _Shown:
    """One module's rows as the command shows them, with what the text says of them."""

    name: str
    rows: list[dict[str, Any]]
    total: int
    summary: dict[str, Any]
    matched: tuple[int, str] | None
    communication: dict[str, Any] | None


@dataclass
class _Table:
    """How the rows are chosen: --by-source, --filter, --sort, --top, and the cap a person's
    table stops at (``capped``: the text; machines get every row)."""

    by_source: bool
    filters: tuple[str, ...]
    sort: str | None
    top: int | None
    capped: bool
    ranked_by: str | None = None
    was_capped: bool = False

    def of(self, module: Module, device: DeviceSpec | None) -> _Shown:
        from ..analysis.fusion_notes import summary_to_dict
        from ..analysis.fusions import fusion_report, source_rows
        from ..analysis.step_estimate import module_communication
        from ..render.rows import filter_rows

        report = fusion_report(module)
        every_row = source_rows(report) if self.by_source else report.rows()
        rows = every_row if self.by_source else filter_rows(every_row, self.filters)
        total = len(rows)
        rows = self._chosen(rows)
        matched = (len(every_row), " and ".join(self.filters)) if self.filters else None
        comm = module_communication(module, device)
        summary = summary_to_dict(report.summary)
        shown_comm = comm.to_dict() if comm is not None else None
        return _Shown(module.name, rows, total, summary, matched, shown_comm)

    def _chosen(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        from ..render.rows import sort_rows

        if self.sort:
            rows = sort_rows(rows, self.sort)
        elif self.top is not None and rows:
            self.ranked_by = next((c for c in TOP_RANKS if c in rows[0]), None)
            rows = sort_rows(rows, self.ranked_by) if self.ranked_by else rows
        if self.top is not None:
            return rows[: self.top]
        if self.capped and len(rows) > TABLE_ROWS:
            # A person reads the top of a table (and rich takes seconds to lay out thousands
            # of rows): the heaviest kernels, unless --sort chose an order. Machines get all.
            self.was_capped = True
            return (rows if self.sort else sort_rows(rows, "bytes"))[:TABLE_ROWS]
        return rows


def _payloads(shown: list[_Shown]) -> list[dict[str, Any]]:
    compiled = opened_fields()
    return [
        {
            "module": each.name,
            **compiled,
            "rows": each.rows,
            "summary": each.summary,
            **(each.communication or {}),
        }
        for each in shown
    ]


def _print_text(shown: list[_Shown], table: _Table, all_modules: bool, wide: bool) -> None:
    from rich.console import Console

    from ..render.fusion_table import render_by_source, render_fusion_collectives, render_fusions
    from ..render.rows import sort_column

    console = Console()
    sorted_by = sort_column(table.sort) if table.sort else table.ranked_by
    for i, each in enumerate(shown):
        title = f"module {each.name}" if all_modules else ""
        if i:
            console.print()
        if table.by_source:
            if title:
                console.print(title, style="bold", markup=False)
            render_by_source(each.rows, console, wide=wide)
        else:
            render_fusions(
                each.rows,
                each.summary,
                console,
                title=title,
                total_rows=each.total,
                wide=wide,
                sorted_by=sorted_by,
                matched=each.matched,
            )
        if each.communication is not None:
            render_fusion_collectives(each.communication, console, wide=wide)
    for note in _table_notes(table):
        console.print(note, style="dim", markup=False)


def _table_notes(table: _Table) -> list[str]:
    """What the text says under the tables of how their rows were chosen."""
    notes = []
    if table.ranked_by is not None:
        notes.append(
            f"(--top {table.top} ranked by {table.ranked_by}, heaviest first; by time: "
            "hloscope bench --per-kernel)"
        )
    if table.was_capped:
        order = f"sorted by {table.sort}" if table.sort else "the kernels moving the most bytes"
        notes.append(
            f"(tables stop at {TABLE_ROWS} rows: {order}; --top N shows N, --csv or --json "
            "every row)"
        )
    return notes

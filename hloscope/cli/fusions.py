"""``hloscope fusions TARGET``: the kernels XLA made of a module, as a table, JSON or CSV."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

from ._app import CliError, cli
from ._device import device_option
from ._target import (
    all_modules_option,
    module_option,
    open_modules,
    opened_fields,
    refresh_option,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..devices import DeviceSpec

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
    "sort",
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
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print JSON: {module, rows, summary}; a module with collectives (or any, with "
    "--device) adds collectives (one row each), communication (totals) and step.",
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
    from ..analysis.fusions import COLUMNS, SOURCE_COLUMNS, fusion_report, source_rows
    from ..analysis.step_estimate import module_communication
    from ..render.fusion_table import render_by_source, render_fusion_collectives, render_fusions
    from ..render.rows import filter_rows, rows_to_csv, sort_column, sort_rows, summary_to_dict

    if as_json and as_csv:
        raise CliError("--json and --csv exclude each other")
    if by_source and filters:
        raise CliError("--filter applies to kernel rows, not to --by-source")
    modules = open_modules(
        target, module=module, all_modules=all_modules, refresh=refresh, device=device
    )
    reports = []
    communications = []
    capped = False
    ranked_by: str | None = None
    for each in modules:
        report = fusion_report(each)
        every_row = source_rows(report) if by_source else report.rows()
        rows = every_row if by_source else filter_rows(every_row, filters)
        total = len(rows)
        if sort:
            rows = sort_rows(rows, sort)
        elif top is not None and rows:
            ranked_by = next((c for c in TOP_RANKS if c in rows[0]), None)
            rows = sort_rows(rows, ranked_by) if ranked_by else rows
        if top is not None:
            rows = rows[:top]
        elif not (as_json or as_csv) and len(rows) > TABLE_ROWS:
            # A person reads the top of a table (and rich takes seconds to lay out thousands
            # of rows): the heaviest kernels, unless --sort chose an order. Machines get all.
            rows = (rows if sort else sort_rows(rows, "bytes"))[:TABLE_ROWS]
            capped = True
        matched = (len(every_row), " and ".join(filters)) if filters else None
        reports.append((each.name, rows, total, summary_to_dict(report.summary), matched))
        comm = module_communication(each, device)
        communications.append(comm.to_dict() if comm is not None else None)
    if as_json:
        compiled = opened_fields()
        payloads = [
            {"module": name, **compiled, "rows": rows, "summary": summary, **(comm or {})}
            for (name, rows, _, summary, _), comm in zip(reports, communications)
        ]
        json.dump({"modules": payloads} if all_modules else payloads[0], sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif as_csv:
        columns = SOURCE_COLUMNS if by_source else COLUMNS
        sys.stdout.write(
            rows_to_csv([row for _, rows, _, _, _ in reports for row in rows], columns)
        )
    else:
        from rich.console import Console

        console = Console()
        sorted_by = sort_column(sort) if sort else ranked_by
        for i, (name, rows, total, summary, matched) in enumerate(reports):
            title = f"module {name}" if all_modules else ""
            if i:
                console.print()
            if by_source:
                if title:
                    console.print(title, style="bold", markup=False)
                render_by_source(rows, console, wide=wide)
            else:
                render_fusions(
                    rows,
                    summary,
                    console,
                    title=title,
                    total_rows=total,
                    wide=wide,
                    sorted_by=sorted_by,
                    matched=matched,
                )
            shown = communications[i]
            if shown is not None:
                render_fusion_collectives(shown, console, wide=wide)
        if ranked_by is not None:
            console.print(
                f"(--top {top} ranked by {ranked_by}, heaviest first; by time: hloscope bench "
                "--per-kernel)",
                style="dim",
                markup=False,
            )
        if capped:
            order = f"sorted by {sort}" if sort else "the kernels moving the most bytes"
            console.print(
                f"(tables stop at {TABLE_ROWS} rows: {order}; --top N shows N, --csv or --json "
                "every row)",
                style="dim",
                markup=False,
            )

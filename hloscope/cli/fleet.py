"""``hloscope fleet DUMP_OR_PREFIX...``: one row per module of every dump under some folders or
object-storage prefixes, analysed on Dask, and regressions against a baseline run."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..errors import ExitStatus, MissingExtra
from ._app import CliError, cli
from ._fail_on import fail_on_options
from ._output import Format, json_option, output_format, show

__all__ = ["fleet_command"]


@cli.command("fleet")
@click.argument("paths", nargs=-1, required=True, metavar="DUMP_OR_PREFIX...")
@click.option(
    "--label",
    metavar="REGEX",
    help="Name each dump by the first group (or the group named 'label') of REGEX searched in "
    "its location, e.g. 'host-(\\d+)'. Default: its path below the folder given.",
)
@json_option('Print JSON: {"rows": [...]}, with --vs also "regressions" and "failures".')
@click.option("--csv", "as_csv", is_flag=True, help="Print the rows as CSV.")
@click.option(
    "-o",
    "--output",
    metavar="FILE.parquet",
    type=click.Path(dir_okay=False),
    help="Also write the rows to a parquet file (pyarrow), the baseline of a later --vs.",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="A Dask scheduler to run on (tcp://host:8786; default: $DASK_SCHEDULER_ADDRESS, else a "
    "local cluster of one worker per core). 'sync' runs in this process, without Dask.",
)
@click.option(
    "--vs",
    "baseline",
    metavar="BASELINE.parquet",
    help="Compare with an earlier run's -o file: modules paired by label and function.",
)
@fail_on_options(
    "With --vs: exit 3 when any of these grew by more than --threshold percent "
    "(comma-separated: kernels, bytes, flops, peak, compiles).",
    "How much growth --fail-on tolerates, in percent of the baseline.",
    threshold_metavar="PERCENT",
)
@click.option(
    "--wide", is_flag=True, help="Show every column at full width (by default the table fits)."
)
def fleet_command(
    paths: tuple[str, ...],
    label: str | None,
    as_json: bool,
    as_csv: bool,
    output: str | None,
    scheduler: str | None,
    baseline: str | None,
    fail_on: str | None,
    threshold: float,
    wide: bool,
) -> None:
    """One row per module of every XLA dump found under DUMP_OR_PREFIX... (folders at any
    depth: a pod's per-host dumps, a nightly run's per-model dumps; local paths or s3://,
    gs://, az://, memory:// prefixes, listed once each): its label, dump, module, function,
    compiles, instructions, kernels, fusions by kind, bytes at kernel boundaries, FLOPs, peak
    memory, collective bytes, and the error of a module that could not be read.

    Each module file is one Dask task: on the cluster of --scheduler, else on a local cluster
    (pip install 'hloscope[dask]'). A module that fails is a row with its error, never a lost
    run; a worker lost mid-run has its tasks run again.

    With --vs BASELINE.parquet (an earlier run's -o file), the functions of each label are
    compared with the baseline's: kernels, bytes, FLOPs, peak memory and compiles, growth in
    percent; --fail-on bytes,peak --threshold 5 makes that a CI check.

    Exit status: 0 done; 1 some module could not be read (its row says why), or a folder
    holds no dump; 2 bad options or a path that does not exist; 3 a --fail-on check failed.
    """
    from ..fleet import Metric, fleet_rows

    chosen = output_format(as_json, as_csv)
    if fail_on is not None and baseline is None:
        raise CliError("--fail-on needs --vs BASELINE.parquet to compare with")
    metrics = Metric.parse_list(fail_on) if fail_on is not None else []
    rows = fleet_rows(
        list(paths), label=label, scheduler=scheduler, progress=_progress_wanted(scheduler)
    )
    if output is not None:
        _write_parquet(rows, output)
    compared = _compare(rows, baseline, metrics, threshold) if baseline else None
    _print(rows, compared, chosen, threshold=threshold, wide=wide)
    for row in rows:
        if row["error"] is not None:
            click.echo(row["error"], err=True)
    if compared is not None and compared[1]:
        sys.exit(int(ExitStatus.CHECK_FAILED))
    if any(row["error"] is not None for row in rows):
        sys.exit(int(ExitStatus.ERROR))


def _progress_wanted(scheduler: str | None) -> bool:
    from ..fleet import SYNC, scheduler_address

    return sys.stderr.isatty() and scheduler_address(scheduler) != SYNC


def _write_parquet(rows: list[dict[str, Any]], output: str) -> None:
    from ..fleet import to_frame

    frame = to_frame(rows)
    try:
        frame.to_parquet(output, index=False)
    except ImportError as e:  # pandas names the engine it lacks
        raise MissingExtra(
            f"-o {output}: writing parquet needs pyarrow ({e})", extra="dask"
        ) from None


def _compare(
    rows: list[dict[str, Any]], baseline: str, metrics: list[Any], threshold: float
) -> tuple[Any, list[Any]]:
    from ..fleet import read_fleet, regressions, to_frame

    result = regressions(to_frame(rows), read_fleet(baseline))
    return result, result.failures(metrics, threshold)


def _print(
    rows: list[dict[str, Any]],
    compared: tuple[Any, list[Any]] | None,
    chosen: Format,
    *,
    threshold: float,
    wide: bool,
) -> None:
    from ..fleet import COLUMNS

    show(
        chosen,
        json=lambda: _payload(rows, compared),
        csv=lambda: (rows, COLUMNS),
        text=lambda: _print_text(rows, compared, threshold=threshold, wide=wide),
    )


def _payload(rows: list[dict[str, Any]], compared: tuple[Any, list[Any]] | None) -> Any:
    payload: dict[str, Any] = {"rows": rows}
    if compared is not None:
        result, failures = compared
        payload["regressions"] = result.to_dict()["pairs"]
        payload["failures"] = [
            {
                "label": p.label,
                "function": p.function,
                "metric": m.value,
                "percent": "inf" if pct == float("inf") else pct,
            }
            for p, m, pct in failures
        ]
    return payload


def _print_text(
    rows: list[dict[str, Any]],
    compared: tuple[Any, list[Any]] | None,
    *,
    threshold: float,
    wide: bool,
) -> None:
    from rich.console import Console

    from ..render.fleet_text import render_fleet, render_regressions

    console = Console()
    render_fleet(rows, console, wide=wide)
    if compared is not None:
        console.print()
        render_regressions(compared[0], compared[1], threshold, console, wide=wide)

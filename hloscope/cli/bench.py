"""``hloscope bench TARGET``: time the program on a device, place it under the roofline;
``--per-kernel`` gives every kernel its time inside the program (a trace; ``--isolated``: each
kernel timed alone); ``-o roofline.svg`` draws the roofline chart; ``--vs B`` compares two
programs."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from ..errors import ExitStatus
from ._app import CliError, cli
from ._count import count_option
from ._output import CsvRows, Format, json_option, output_format, show
from ._target import module_option, open_target, refresh_option

__all__ = ["bench_command", "parse_seconds", "parse_fraction"]

_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|sec|m|min)?\s*$", re.IGNORECASE)
_SCALE = {"ms": 1e-3, "s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0}


def parse_seconds(text: str, option: str) -> float:
    """``10s``, ``500ms``, ``2m``, ``1.5`` (seconds) -> seconds; ``click.BadParameter`` else."""
    found = _DURATION.match(text)
    if found is None or float(found.group(1)) <= 0:
        raise click.BadParameter(
            f"{text!r} is not a positive duration (like 10s, 500ms, 2m)", param_hint=option
        )
    return float(found.group(1)) * _SCALE[(found.group(2) or "s").lower()]


def parse_fraction(text: str, option: str) -> float:
    """``2%`` or ``0.02`` -> 0.02 (a bare number of 1 or more is read as percent)."""
    cleaned = text.strip()
    percent = cleaned.endswith("%")
    try:
        value = float(cleaned.rstrip("%").strip())
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is not a percentage (like 2%)", param_hint=option
        ) from None
    if percent or value >= 1:
        value /= 100
    if not 0 < value < 1:
        raise click.BadParameter(f"{text!r} must be between 0% and 100%", param_hint=option)
    return value


@contextmanager
def _progress_bar(enabled: bool) -> Iterator[Callable[[str, float, str], None] | None]:
    """A rich progress bar on stderr (only on a terminal); yields the callback for it."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[note]}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    tasks: dict[str, Any] = {}
    words = {
        "program": "timing the program",
        "compare": "timing A and B",
        "kernels": "timing kernels",
        "profile": "tracing the program",
        "calibrate": "measuring the CPU's peak",
    }

    def update(stage: str, fraction: float, note: str) -> None:
        task = tasks.get(stage)
        if task is None:
            task = tasks[stage] = bar.add_task(words.get(stage, stage), total=1.0, note="")
        bar.update(task, completed=fraction, note=note)

    with bar:
        yield update


@cli.command("bench")
@click.argument("target")
@click.option(
    "--device",
    metavar="DEV",
    help="The local JAX device to run on: cpu, gpu, tpu, or PLATFORM:N / N (default: JAX's "
    "default device). Unlike the other commands' --device NAME[:SLICE], a chip model of the "
    "device registry, this is a device this machine has; its peaks are the registry's for the "
    "device_kind JAX reports (a CPU's are measured).",
)
@click.option(
    "--precision",
    default="2%",
    show_default=True,
    metavar="PCT",
    help="Stop when the median is known to within PCT (95% confidence).",
)
@click.option(
    "--budget",
    default="10s",
    show_default=True,
    metavar="TIME",
    help="At most this much time in timed runs of the program (10s, 500ms, 2m).",
)
@click.option(
    "--per-kernel",
    is_flag=True,
    help="Also give every kernel its time inside the program, from a profiler trace of a few "
    "steps (device time per step, share, rates, bound), ranked by time.",
)
@click.option(
    "--isolated",
    is_flag=True,
    help="With --per-kernel: extract every kernel, compile and time it alone instead.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    metavar="FILE.svg",
    help="Write the roofline chart (kernels as points under the two roofs) to FILE.svg.",
)
@click.option(
    "--kernel-budget",
    metavar="TIME",
    help="With --isolated: each kernel's budget (default: --budget / 100, 20ms to 1s).",
)
@click.option("--vs", metavar="B", help="Compare with a second TARGET B, timed interleaved.")
@click.option(
    "--fail-slower",
    type=click.FloatRange(min=0),
    metavar="PCT",
    help="With --vs: exit 3 when B is significantly slower than A by more than PCT percent.",
)
@click.option(
    "--no-profile", is_flag=True, help="With --isolated: skip the profiler trace beside them."
)
@count_option(
    "--top",
    "With --per-kernel: show the N slowest kernels (default 20; --json gives them all).",
    least=1,
)
@click.option("--all", "all_kernels", is_flag=True, help="With --per-kernel: show every kernel.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random inputs.")
@json_option("Print the result as JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print the kernels (or the program) as CSV.")
@click.option("--wide", is_flag=True, help="Show every kernel column at full width.")
@module_option
@refresh_option
def bench_command(
    target: str,
    device: str | None,
    precision: str,
    budget: str,
    per_kernel: bool,
    isolated: bool,
    output: str | None,
    kernel_budget: str | None,
    vs: str | None,
    fail_slower: float | None,
    no_profile: bool,
    top: int | None,
    all_kernels: bool,
    seed: int,
    as_json: bool,
    as_csv: bool,
    wide: bool,
    module: str | None,
    refresh: bool,
) -> None:
    """Compile TARGET for a device and time it: warm-up, runs until the median is known to
    --precision or --budget is spent, min/median/p10/p90 and spread; FLOP/s and bytes/s from
    the cost model and the roofline position against the device's peak (vendor figures for
    TPUs and NVIDIA GPUs; for CPUs a one-time measurement, best of several runs, with the main
    memory roof over arrays 4x the last-level cache, raised with a note when a program beats
    it). Inputs are the script's example arguments for SCRIPT.py:FUNCTION, else random arrays
    of the entry parameters' shapes.

    --per-kernel runs the program a few steps under the profiler and gives each kernel its
    measured device time per step (XLA:CPU: its host threads' time), share, executions,
    achieved FLOP/s and bytes/s (through HBM on a TPU), bound and source line; the kernels'
    sum is shown beside the program's wall time, with the gap (host, launch, idle).
    --isolated instead extracts every kernel, compiles and times it alone. -o roofline.svg
    draws the chart: kernels as points under the two roofs. --vs B times A and B interleaved
    and says whether B is faster, slower, or not significantly different: a difference must
    exceed the noise that halves of each program's own runs show.

    Exit status: 0 done, 1 error, 2 unreadable HLO, 3 --fail-slower tripped."""
    chosen = output_format(as_json, as_csv)
    _refuse_mixed(per_kernel, isolated, top, all_kernels, vs, fail_slower, output)
    options = _timing_options(device, module, refresh, seed, precision, budget)
    kernel_seconds = parse_seconds(kernel_budget, "--kernel-budget") if kernel_budget else None
    spec = _open(target, refresh)
    if vs is not None:
        _compare(spec, (target, vs), options, chosen, fail_slower, refresh)
        return
    result = _timed(spec, options, per_kernel, isolated, kernel_seconds, no_profile)
    _show(result, chosen, wide, top, all_kernels, chart=output)


def _timing_options(
    device: str | None, module: str | None, refresh: bool, seed: int, precision: str, budget: str
) -> dict[str, Any]:
    """The options one run and a --vs comparison share, --precision and --budget parsed."""
    return {
        "device": device,
        "module": module,
        "refresh": refresh,
        "seed": seed,
        "precision": parse_fraction(precision, "--precision"),
        "budget": parse_seconds(budget, "--budget"),
    }


def _timed(
    spec: Any,
    options: dict[str, Any],
    per_kernel: bool,
    isolated: bool,
    kernel_seconds: float | None,
    no_profile: bool,
) -> Any:
    """One program timed (with --per-kernel, its kernels too), a progress bar on a terminal."""
    from ..bench.api import bench

    with _progress_bar(True) as progress:
        return bench(
            spec,
            progress=progress,
            per_kernel=per_kernel,
            isolated=isolated,
            kernel_budget=kernel_seconds,
            profile=not no_profile,
            **options,
        )


def _refuse_mixed(
    per_kernel: bool,
    isolated: bool,
    top: int | None,
    all_kernels: bool,
    vs: str | None,
    fail_slower: float | None,
    output: str | None,
) -> None:
    """A usage error for options that do not go together."""
    if fail_slower is not None and vs is None:
        raise CliError("--fail-slower needs --vs B")
    if per_kernel and vs is not None:
        raise CliError("--per-kernel and --vs exclude each other")
    if isolated and not per_kernel:
        raise CliError("--isolated goes with --per-kernel")
    if output is not None and vs is not None:
        raise CliError("-o and --vs exclude each other")
    if all_kernels and top is not None:
        raise CliError("--top N and --all exclude each other")


def _compare(
    spec: Any,
    labels: tuple[str, str],
    options: dict[str, Any],
    chosen: Format,
    fail_slower: float | None,
    refresh: bool,
) -> None:
    """``--vs B``: A and B timed interleaved, the verdict shown; exit 3 past --fail-slower."""
    from ..bench.api import compare

    other = _open(labels[1], refresh)
    with _progress_bar(True) as progress:
        comparison = compare(spec, other, progress=progress, **options)
    _show_comparison(comparison, labels, chosen)
    c = comparison.comparison
    if fail_slower is not None and c.b_slower and c.slower_percent > fail_slower:
        click.echo(
            f"hloscope bench: B is {c.slower_percent:.1f}% slower than A "
            f"(more than --fail-slower {fail_slower:g}%): {c.verdict}",
            err=True,
        )
        sys.exit(int(ExitStatus.CHECK_FAILED))


def _write_chart(result: Any, path: str) -> None:
    from ..errors import HloscopeError
    from ..render.roofline_svg import bench_roofline_svg

    svg = bench_roofline_svg(result.to_dict(), result.kernel_rows())
    if svg is None:
        raise HloscopeError(f"no roofline chart: no peak figures for {result.device}")
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(svg)
    except OSError as error:
        raise HloscopeError(f"cannot write {path}: {error.strerror}") from None
    click.echo(f"wrote {path}", err=True)


def _open(spec: str, refresh: bool) -> Any:
    """A script function stays a string (imported here by bench); anything else is opened as
    a TARGET, so that the command reports the module files it had to leave out."""
    script, sep, function = spec.rpartition(":")
    if sep and script.endswith(".py") and function.isidentifier():
        return spec
    return open_target(spec, refresh=refresh)


def _show(
    result: Any,
    chosen: Format,
    wide: bool,
    top: int | None,
    all_kernels: bool,
    chart: str | None = None,
) -> None:
    """One program's result: the roofline chart written to ``chart`` (-o) first, then the
    result as JSON, CSV or text."""
    if chart is not None:
        _write_chart(result, chart)

    def csv() -> CsvRows:
        rows = result.kernel_rows() if result.per_kernel else [result.program_row()]
        if top is not None and result.per_kernel:
            rows = rows[:top]
        return rows, None

    def text() -> None:
        from rich.console import Console

        from ..render.bench_text import DEFAULT_TOP, render_bench

        shown = None if all_kernels else top if top is not None else DEFAULT_TOP
        render_bench(result, Console(), wide=wide, top=shown)

    show(chosen, json=result.to_dict, csv=csv, text=text)


def _show_comparison(result: Any, labels: tuple[str, str], chosen: Format) -> None:
    def csv() -> CsvRows:
        c = result.comparison.to_dict()
        rows = [
            {
                "side": side,
                "target": label,
                **r.program_row(),
                "ratio_b_over_a": c["ratio"],
                "ci95_low": c["ci95"][0],
                "ci95_high": c["ci95"][1],
                "verdict": c["verdict"],
            }
            for side, label, r in (("A", labels[0], result.a), ("B", labels[1], result.b))
        ]
        return rows, list(rows[0])

    def text() -> None:
        from rich.console import Console

        from ..render.bench_text import render_comparison

        render_comparison(result, Console(), labels)

    show(chosen, json=result.to_dict, csv=csv, text=text)

"""``hloscope compile-time TARGET``: where a compile's time went, by stage, HLO pass, pipeline
and line of your code, and what makes it slow (:mod:`hloscope.analysis.compile_time`).

A ``SCRIPT.py:FUNCTION`` (with ``--device tpu-*``: XLA:TPU's own compile, offline) is compiled
in the capture's child, which keeps JAX's stage durations and XLA's pass timestamps with the
capture (cached: a second run reads them; ``--refresh`` measures again). A dump folder gives
XLA's pass times only.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import click

from ._app import CliError, cli
from ._count import count_option
from ._device import COMPILE_LEAD, device_option
from ._output import json_option, output_format, show
from ._target import module_option, open_target, refresh_option, say_note

__all__ = ["compile_time_command"]


@cli.command("compile-time")
@click.argument("target")
@json_option("Print the report as JSON.")
@count_option(
    "--top",
    "Passes and lines shown in the text (--json has them all).",
    least=1,
    default=10,
)
@device_option(COMPILE_LEAD)
@module_option
@refresh_option
@click.option(
    "--scale",
    metavar="ARG:DIM|NAME",
    help="How the compile time grows: compile SCRIPT.py:FUNCTION at three sizes of dimension "
    "DIM of argument ARG (x:0), or of NAME, a parameter of the script's example_args "
    "(def example_args(layers=4)); fit the total and each stage through two (a line and a "
    "power law), check them on the third, and predict --at.",
)
@click.option(
    "--sizes",
    metavar="S1,S2,CHECK",
    help="With --scale: the two sizes fitted and the one checked (default: the example's n, "
    "2n and 3n).",
)
@click.option(
    "--slices",
    metavar="A,B[,CHECK]",
    help="How the compile time grows with a TPU slice: compile for slices A and B of --device's "
    "chip (2x2,2x4), fit against the chip count, check on CHECK (default: half of the smaller "
    "slice's chips), and predict --at (4x4).",
)
@click.option(
    "--at",
    metavar="SIZE",
    help="With --scale or --slices: the size (64) or slice (4x4) to predict the compile time "
    "of: an estimate, said with the fit's error on its check.",
)
@count_option(
    "--repeat",
    "With --scale or --slices: compile each size this many times (in turn, each in a "
    "fresh process) and keep the fastest, for a busy machine.",
    least=1,
    default=1,
)
def compile_time_command(
    target: str,
    as_json: bool,
    top: int,
    module: str | None,
    refresh: bool,
    device: Any = None,
    scale: str | None = None,
    sizes: str | None = None,
    slices: str | None = None,
    at: str | None = None,
    repeat: int = 1,
) -> None:
    """How long TARGET's compile took and why: tracing, lowering, XLA's HLO passes and the
    backend's code generation and scheduling; the slowest passes and pipelines (from XLA:TPU's
    pass timestamps); each line of your code with the instructions it made before and after
    optimization; and the known causes of a slow compile (an unrolled Python loop, a large
    constant, thousands of tiny ops), each with its line, its share and what to write instead.
    TARGET is SCRIPT.py:FUNCTION (--device tpu-v5e compiles it with XLA:TPU), a capture
    folder, or a dump folder. With --scale or --slices: how the compile time grows, fitted on
    small compiles, and the time predicted at --at (an estimate, with its error on a check)."""
    if scale is not None or slices is not None:
        _growth(target, as_json, refresh, device, (scale, sizes, slices, at), repeat)
        return
    if sizes is not None or at is not None:
        raise CliError("--sizes and --at go with --scale or --slices")
    from ..capture.target import TargetKind
    from ..drivers.compile_time import compile_time_of_target

    opened = open_target(target, refresh=refresh, device=device)
    if opened.kind is TargetKind.FUNCTION and not refresh and _no_times(opened):
        say_note(f"{target}: the cached capture kept no compile times; capturing it again")
        opened = open_target(target, refresh=True, device=device)
    elif opened.kind is TargetKind.FUNCTION and opened.from_cache:
        say_note("the times measured when this capture was made (cached; --refresh measures again)")
    report = compile_time_of_target(opened, module)

    def text() -> None:
        from ..render.compile_time_text import render_compile_time

        width = shutil.get_terminal_size().columns
        render_compile_time(report, click.echo, width=width, top=top)

    show(output_format(as_json), json=report.to_dict, text=text)


def _no_times(target: Any) -> bool:
    from ..backends.record import Capture

    return Capture.read_index(target.path).get("compile_time") is None


def _growth(
    target: str,
    as_json: bool,
    refresh: bool,
    device: Any,
    asked: tuple[str | None, str | None, str | None, str | None],
    repeat: int,
) -> None:
    """``--scale``/``--slices``: three compiles, a progress line each on stderr, the fits."""
    from ..drivers.compile_growth import compile_growth
    from ..render.compile_growth_text import render_compile_growth

    plan = _plan(target, device, asked)
    progress = _Progress(repeat)
    growth = compile_growth(
        target,
        plan,
        refresh=refresh,
        repeat=repeat,
        on_compile=progress.compiling,
        on_done=progress.done,
    )
    payload = growth.to_dict()
    show(
        output_format(as_json),
        json=lambda: payload,
        text=lambda: render_compile_growth(
            payload, click.echo, width=shutil.get_terminal_size().columns
        ),
    )


def _plan(
    target: str, device: Any, asked: tuple[str | None, str | None, str | None, str | None]
) -> Any:
    """The three sizes ``--scale ARG:DIM`` (with ``--sizes``) or ``--slices`` compile at, and
    the size ``--at`` predicts; a usage error for options that do not go together."""
    from ..capture.target import is_function_spec
    from ..drivers.compile_growth import plan_scale, plan_slices

    scale, sizes, slices, at = asked
    if scale is not None and slices is not None:
        raise CliError("--scale and --slices exclude each other: one size grows at a time")
    if not is_function_spec(target):
        raise CliError(
            f"{target}: --scale and --slices compile a function: give SCRIPT.py:FUNCTION"
        )
    script = Path(target.rpartition(":")[0])
    if not script.is_file():  # before any compile is announced
        raise CliError(f"{script}: no such file")
    if slices is not None:
        if sizes is not None:
            raise CliError("--sizes goes with --scale; --slices names its slices itself")
        return plan_slices(slices, at, None if device is None else str(device))
    assert scale is not None
    return plan_scale(scale, sizes, at, None if device is None else str(device))


class _Progress:
    """A line on stderr as each compile starts and ends: which size, how long it took here."""

    def __init__(self, repeat: int) -> None:
        self.repeat = repeat
        self.started = 0.0
        self.count = 0

    def compiling(self, i: int, label: str) -> None:
        import time

        self.started = time.perf_counter()
        role = "check" if i == 2 else "fit"
        self.count += 1
        click.echo(
            f"hloscope: compiling at {label} ({self.count} of {3 * self.repeat}, {role})...",
            err=True,
        )

    def done(self, point: Any) -> None:
        import time

        from ..render.compile_growth_text import seconds

        took = time.perf_counter() - self.started
        how = "read from the cache" if point.cached else f"{seconds(took)} here"
        click.echo(
            f"hloscope:   size {point.size}: compile {seconds(point.total_s)} ({how})", err=True
        )

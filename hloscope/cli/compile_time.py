"""``hloscope compile-time TARGET``: where a compile's time went, by stage, HLO pass, pipeline
and line of your code, and what makes it slow (:mod:`hloscope.analysis.compile_time`).

A ``SCRIPT.py:FUNCTION`` (with ``--device tpu-*``: XLA:TPU's own compile, offline) is compiled
in the capture's child, which keeps JAX's stage durations and XLA's pass timestamps with the
capture (cached: a second run reads them; ``--refresh`` measures again). A dump folder gives
XLA's pass times only.
"""

from __future__ import annotations

import json
import shutil
import sys
from typing import Any

import click

from ._app import cli
from ._device import COMPILE_LEAD, device_option
from ._target import module_option, open_target, refresh_option, say_note

__all__ = ["compile_time_command"]


@cli.command("compile-time")
@click.argument("target")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--top",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Passes and lines shown in the text (--json has them all).",
)
@device_option(COMPILE_LEAD)
@module_option
@refresh_option
def compile_time_command(
    target: str,
    as_json: bool,
    top: int,
    module: str | None,
    refresh: bool,
    device: Any = None,
) -> None:
    """How long TARGET's compile took and why: tracing, lowering, XLA's HLO passes and the
    backend's code generation and scheduling; the slowest passes and pipelines (from XLA:TPU's
    pass timestamps); each line of your code with the instructions it made before and after
    optimization; and the known causes of a slow compile (an unrolled Python loop, a large
    constant, thousands of tiny ops), each with its line, its share and what to write instead.
    TARGET is SCRIPT.py:FUNCTION (--device tpu-v5e compiles it with XLA:TPU), a capture
    folder, or a dump folder."""
    from ..analysis.compile_time import compile_time_of_target
    from ..capture.target import TargetKind

    opened = open_target(target, refresh=refresh, device=device)
    if opened.kind is TargetKind.FUNCTION and not refresh and _no_times(opened):
        say_note(f"{target}: the cached capture kept no compile times; capturing it again")
        opened = open_target(target, refresh=True, device=device)
    elif opened.kind is TargetKind.FUNCTION and opened.from_cache:
        say_note("the times measured when this capture was made (cached; --refresh measures again)")
    report = compile_time_of_target(opened, module)
    if as_json:
        json.dump(report.to_dict(), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    from ..render.compile_time_text import render_compile_time

    width = shutil.get_terminal_size().columns
    render_compile_time(report, click.echo, width=width, top=top)


def _no_times(target: Any) -> bool:
    from ..capture.inprocess import Capture

    return Capture.read_index(target.path).get("compile_time") is None

"""``hloscope extract TARGET KERNEL -o k.hlo``: one kernel as a standalone HLO module."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._app import cli
from ._target import TargetOptions, target_options

__all__ = ["extract_command"]


@cli.command("extract")
@click.argument("target")
@click.argument("kernel")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write the module here (default: standard output).",
)
@click.option(
    "--runnable",
    is_flag=True,
    help="Write the plain form hloscope compiles (fusions inlined, bitcasts as transposes and "
    "reshapes) instead of the kernel as it is.",
)
@target_options
def extract_command(
    target: str, kernel: str, output: Path | None, runnable: bool, options: TargetOptions
) -> None:
    """Write KERNEL of TARGET's optimized module (a fusion, or an op outside fusions, by its
    instruction name as `hloscope fusions` lists it) as a standalone HLO module: its operands
    become parameters, the computations it calls come along. XLA's parser reads it; tools such
    as run_hlo_module can run it. Kernels that cannot run alone (collectives, host callbacks,
    infeed/outfeed, send/recv) are refused with the reason."""
    from ..bench.extract import extract_kernel, runnable_text
    from ..hlo.parser import parse

    chosen = options.main_module(target)
    extracted = extract_kernel(chosen, kernel)
    text = runnable_text(parse(extracted.text)) if runnable else extracted.text
    if output is None:
        sys.stdout.write(text)
        return
    output.write_text(text)
    shapes = ", ".join(p.describe() for p in extracted.parameters) or "no parameters"
    click.echo(f"wrote {output}: kernel {extracted.name} of {chosen.name} ({shapes})", err=True)

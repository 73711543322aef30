"""``hloscope ls DUMP``: the modules of an XLA dump folder (local, or a URL), one row each,
grouped by function."""

from __future__ import annotations

import sys

import click

from ..errors import ExitStatus
from ._app import cli
from ._output import json_option, output_format, show

__all__ = ["ls_command"]

# Folders with fewer modules than this are read before a progress bar would be worth drawing.
_PROGRESS_FROM = 20


@cli.command("ls")
@click.argument("dump", type=click.Path())
@json_option("Print JSON instead of a table.")
@click.option(
    "--no-parse", is_flag=True, help="Only list files; read no module (fast, no counts or memory)."
)
@click.option(
    "--wide", is_flag=True, help="Show every column at full width (by default the table fits)."
)
def ls_command(dump: str, as_json: bool, no_parse: bool, wide: bool) -> None:
    """List the modules of an XLA dump folder (--xla_dump_to): id, function, stages,
    instruction and fusion counts, size on disk, peak memory. Compilations of one function are
    grouped, so recompiles show ("compiled 4x").

    DUMP is a local folder or where the dump lives: s3://, gs://, az://, http(s)://,
    memory:// (needs hloscope[cloud]; credentials as the store's own tools find them). It is
    listed once and only the files a row needs are fetched (none with --no-parse).

    Exit status: 0 everything read; 1 some file could not be read (listed on stderr, one line
    each) or no dump files were found; 2 DUMP is not a folder."""
    from ..dump.index import load_dump
    from ..dump.listing import build_listing, listing_json
    from ..render.dump_listing import render_listing

    index = load_dump(dump)  # DumpFormatError (exit 2) when DUMP is not a folder
    listing = build_listing(
        index, parse=not no_parse, progress=_progress(index, enabled=not as_json)
    )

    def text() -> None:
        if index.modules:
            render_listing(listing, sys.stdout, wide=wide)

    show(output_format(as_json), json=lambda: listing_json(listing), text=text)
    sys.stdout.flush()
    # Problems last, so they are the last thing on a terminal; one line each.
    for line in [*listing.warnings, *listing.errors]:
        click.echo(line, err=True)
    if not index.modules:
        unknown = len(index.unknown_files)
        hint = f" ({unknown} other file{'s' if unknown != 1 else ''})" if unknown else ""
        click.echo(f"{index.root}: error: no XLA dump files found{hint}", err=True)
        sys.exit(int(ExitStatus.ERROR))
    if listing.errors:
        sys.exit(int(ExitStatus.ERROR))


def _progress(index, enabled: bool):
    """A rich progress bar on a terminal for big folders; ``None`` otherwise."""
    if not enabled or not sys.stderr.isatty() or len(index.modules) < _PROGRESS_FROM:
        return None
    from rich.console import Console
    from rich.progress import Progress

    progress = Progress(console=Console(stderr=True), transient=True)
    task = progress.add_task("reading modules", total=len(index.modules))
    progress.start()
    done = [0]

    def step(_module) -> None:
        done[0] += 1
        progress.advance(task)
        if done[0] == len(index.modules):
            progress.stop()

    return step

"""``hloscope memory TARGET``: the peak, what fills it, the timeline and what would free it."""

from __future__ import annotations

import json
import sys

import click

from ._app import cli
from ._target import all_modules_option, module_option, open_target, refresh_option

__all__ = ["memory_command"]


@cli.command("memory")
@click.argument("target")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (issue 21's layout).")
@module_option
@all_modules_option
@refresh_option
@click.option(
    "-o",
    "--output",
    "picture",
    type=click.Path(dir_okay=False),
    help="Also write the timeline picture (live bytes over the schedule, peak marked) to this "
    ".svg file.",
)
def memory_command(
    target: str,
    as_json: bool,
    module: str | None,
    all_modules: bool,
    refresh: bool,
    picture: str | None,
) -> None:
    """Show TARGET's peak memory: its breakdown, the buffers live at the peak by source line
    and scope, a timeline, and what would free memory. The source is said: XLA's buffer
    assignment when the dump has it, else hloscope's simulation of the module."""
    from ..analysis.memory import memory_results
    from ..render.memory_text import render_memory
    from ._app import CliError

    if module is not None and all_modules:
        raise CliError("--module and --all-modules exclude each other")
    if picture is not None and not picture.endswith(".svg"):
        raise CliError(f"-o {picture}: the timeline picture is SVG; name a .svg file")
    results = memory_results(
        open_target(target, refresh=refresh), module=module, all_modules=all_modules
    )
    for r in results:
        for note in r.notes:
            if note.startswith("warning: "):
                click.echo(f"hloscope: {note}", err=True)
    if picture is not None:
        from pathlib import Path

        from ..render.memory_svg import render_memory_svg

        # With several modules the picture is the first one's (the main module's).
        Path(picture).write_text(render_memory_svg(results[0]))
    if as_json:
        payloads = [r.to_dict() for r in results]
        json.dump({"modules": payloads} if all_modules else payloads[0], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    sys.stdout.write("\n".join(render_memory(r) for r in results))

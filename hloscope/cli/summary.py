"""``hloscope summary TARGET...``: what is in each module, one panel (or JSON object) each."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..errors import ExitStatus, HloscopeError
from ._app import PREFIX, cli
from ._device import COMPILE_LEAD, device_option
from ._output import Format, output_format, write_json
from ._target import all_modules_option, module_option, open_modules, refresh_option, stage_option

__all__ = ["summary"]


@cli.command()
@click.argument("targets", nargs=-1, required=True, metavar="TARGET...")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: a list, one object per module.")
@click.option(
    "--wide",
    is_flag=True,
    help="Print each line in full, however long (by default shapes wrap to the terminal).",
)
@stage_option
@module_option
@all_modules_option
@refresh_option
@device_option(COMPILE_LEAD)
def summary(
    targets: tuple[str, ...],
    as_json: bool,
    wide: bool,
    stage: str,
    module: str | None,
    all_modules: bool,
    refresh: bool,
    device: Any = None,
) -> None:
    """Summarize HLO modules: computations, instructions by category, fusions by kind, entry
    parameters with shapes and bytes, custom-call targets and source files referenced.

    Each TARGET is an HLO text file, a dump folder (either may be a URL: s3://, gs://, az://,
    http(s)://, memory://, with hloscope[cloud]) or SCRIPT.py[:FUNCTION] (captured first);
    of several modules, its main module is summarized (--module picks another,
    --all-modules shows every one, e.g. every compile in a dump folder). A target that cannot
    be read is reported on one line (file:line:column) and the others are still summarized;
    the exit status is then that error's (2 for a path that does not exist or text that does
    not parse, 1 for a capture that failed). Reading text files never imports jax or
    tensorflow.
    """
    from ..analysis.summary import summarize

    chosen = output_format(as_json)
    if chosen is not Format.JSON:  # rich and the panels: ~25 ms of imports JSON never uses
        from rich.console import Console

        from ..render.summary import render_summary

        console = Console()
    results: list[dict[str, Any]] = []
    status: int = ExitStatus.OK
    for spec in targets:
        try:
            modules = open_modules(
                spec,
                stage=stage,
                module=module,
                all_modules=all_modules,
                refresh=refresh,
                device=device,
            )
        except (HloscopeError, OSError) as error:  # one bad target must not stop the others
            click.echo(_error_line(spec, error), err=True)
            code = error.exit_code if isinstance(error, HloscopeError) else ExitStatus.USAGE
            status = max(status, code)
            continue
        for each in modules:
            info = summarize(each)
            if chosen is Format.JSON:
                results.append({"file": spec, "module": each.name, **info.to_dict()})
            else:  # a module's text as soon as it is read, a slow target after it
                render_summary(info, console, source=spec, wide=wide)
    if chosen is Format.JSON:
        write_json(results)
    sys.exit(int(status))


def _error_line(spec: str, error: Exception) -> str:
    if isinstance(error, HloscopeError):
        line = error.one_line()
    else:
        line = getattr(error, "strerror", None) or str(error)
    if ": error: " in line:
        return line
    return PREFIX + (line if spec in line else f"{spec}: {line}")

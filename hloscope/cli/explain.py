"""``hloscope explain TARGET``: each line of Python beside its jaxpr equations, StableHLO ops,
HLO instructions and the kernels they ended in (:mod:`hloscope.analysis.explain`).

A ``SCRIPT.py:FUNCTION`` target is captured once more, in a child process, for the source of
each jaxpr equation (only a live jaxpr has it); that capture is cached with the target's.
"""

from __future__ import annotations

from typing import Any

import click

from ._app import CliError, cli
from ._output import json_option, output_format, show, wide_tables_option
from ._target import TargetOptions, say_note, target_options

__all__ = ["explain_command"]


@cli.command("explain")
@click.argument("target")
@click.option(
    "--line",
    "line_spec",
    metavar="FILE:N",
    help="Show one source line stage by stage (FILE may be the end of the path; for "
    "TensorFlow a layer path).",
)
@click.option("--kernel", metavar="NAME", help="Show one kernel and the lines it came from.")
@json_option("Print the explanation as JSON.")
@wide_tables_option("cells")
@target_options
def explain_command(
    target: str,
    line_spec: str | None,
    kernel: str | None,
    as_json: bool,
    wide: bool,
    options: TargetOptions,
) -> None:
    """Link every line of TARGET's source to its jaxpr equations, StableHLO ops, HLO
    instructions before optimization and the kernels (fusions) they ended in after it.

    A SCRIPT.py:FUNCTION target gives every stage; a dump folder the HLO before and after;
    one HLO file what its text allows (kernels and their lines). What is missing is said."""
    from ..capture.target import TargetKind
    from ..drivers.explain import explain

    if line_spec is not None and kernel is not None:
        raise CliError("--line and --kernel exclude each other")
    opened = options.open(target)
    if opened.kind in (TargetKind.FUNCTION, TargetKind.CAPTURE):
        result = explain(_sourced_capture(opened), line=line_spec, kernel=kernel)
    else:
        # The module every command reads, with the same note on stderr when it was chosen.
        chosen = options.main_module(opened)
        result = explain(opened, line=line_spec, kernel=kernel, module=chosen)
    show(output_format(as_json), json=result.to_dict, text=lambda: _print_text(result, wide))


def _print_text(result: Any, wide: bool) -> None:
    from rich.console import Console

    from ..render.explain_text import render_explanation

    render_explanation(result, Console(), wide=wide)


def _sourced_capture(target):
    """The target's capture with jaxpr sources (capturing them in a child the first time)."""
    from ..capture.jaxpr_lines import capture_for_target, has_jaxpr_sources
    from ..capture.target import TargetKind

    folder = target.output_dir
    first_time = (
        folder is not None
        and not (folder / "explain" / "capture.json").is_file()
        and not has_jaxpr_sources(target.path)
    )
    if target.kind is TargetKind.FUNCTION and first_time:
        say_note(f"tracing {target.spec} again for each jaxpr equation's line (cached)")
    return capture_for_target(target)

"""``hloscope passes TARGET``: XLA's pass pipeline from per-pass snapshots, with counts after
each pass, the passes that changed nothing, one pass's diff and one instruction's story
(:mod:`hloscope.analysis.passes`).

A ``SCRIPT.py:FUNCTION`` target is captured with every pass's snapshot (``passes='.*'``) in a
child process, cached with the target's capture; a dump folder must have been made with
``--xla_dump_hlo_pass_re`` (``hloscope capture SCRIPT.py --passes '.*' -o DIR``).
"""

from __future__ import annotations

import click

from ._app import cli
from ._output import Format, json_option, output_format, wide_tables_option, write_json
from ._target import TargetOptions, open_module, say_note, target_options

__all__ = ["passes_command", "EVERY_PASS"]

#: The pass regex a SCRIPT.py:FUNCTION target is captured with.
EVERY_PASS = ".*"


@cli.command("passes")
@click.argument("target")
@click.option(
    "--pass",
    "pass_name",
    metavar="NAME",
    help="Show the diff of the module before and after this pass (a pass name, "
    "PIPELINE:PASS or a step number; every run of it).",
)
@click.option(
    "--follow",
    metavar="NAME",
    help="Follow one instruction: the pass where it was created, changed, fused or removed.",
)
@json_option("Print the timeline (and diff, follow) as JSON.")
@wide_tables_option("names")
@target_options
def passes_command(
    target: str,
    pass_name: str | None,
    follow: str | None,
    as_json: bool,
    wide: bool,
    options: TargetOptions,
) -> None:
    """Show XLA's passes over TARGET's module in order: instruction, fusion and kernel counts
    after each, and which passes changed nothing. TARGET is SCRIPT.py:FUNCTION (captured with
    every pass), a capture folder with passes, or a dump folder made with
    --xla_dump_hlo_pass_re."""
    from ..drivers.passes import pass_timeline

    opened = options.open(target)
    steps = _steps(opened)
    chosen = _main_module(opened, options.module) if steps is opened else None
    timeline = pass_timeline(steps, module=chosen or options.module, every_pass=_every_pass(opened))
    diffs = timeline.diffs(pass_name) if pass_name is not None else None
    followed = timeline.follow(follow) if follow is not None else None
    if output_format(as_json) is Format.JSON:
        payload = timeline.to_dict()
        if diffs is not None:
            payload["diffs"] = [d.to_dict() for d in diffs]
        if followed is not None:
            payload["follow"] = followed.to_dict()
        write_json(payload)
        return
    from rich.console import Console

    from ..render.passes_text import render_diffs, render_follow, render_timeline

    console = Console()
    if diffs is None and followed is None:
        render_timeline(timeline, console, wide=wide)
        return
    if diffs is not None:
        render_diffs(diffs, console)
    if followed is not None:
        if diffs is not None:
            console.print()
        render_follow(followed, console, wide=wide)


def _steps(target):
    """What the timeline reads: the capture of a function (with every pass) or the target."""
    from ..capture.target import TargetKind

    if target.kind is TargetKind.FUNCTION:
        from ..capture.jaxpr_lines import capture_for_target

        if (
            target.output_dir is not None
            and not (target.output_dir / "explain-passes" / "capture.json").is_file()
        ):
            say_note(f"capturing {target.spec} after every XLA pass (cached)")
        return capture_for_target(target, passes=EVERY_PASS)
    if target.kind is TargetKind.SCRIPT and not (target.manifest or {}).get("passes"):
        from ..analysis.passes import PassesError

        raise PassesError(
            f"{target.spec}: the script was captured without per-pass snapshots; use "
            f"`hloscope capture {target.spec} --passes '.*' -o DIR` and `hloscope passes DIR`, "
            "or a SCRIPT.py:FUNCTION target"
        )
    return target


def _main_module(target, module: str | None):
    """The module of a dump every command reads (``--module``, else the main module), with
    the same note on stderr as theirs; ``None`` for a dump that holds only snapshots."""
    from ..capture.target import TargetError, TargetKind

    if target.kind not in (TargetKind.DUMP, TargetKind.SCRIPT):
        return None
    try:
        return open_module(target, module=module).module
    except TargetError:  # no optimized module to choose by: pass_timeline picks by snapshots
        return None


def _every_pass(target) -> bool:
    """Whether every pass was dumped (a capture's manifest says with which regex)."""
    passes = (target.manifest or {}).get("passes")
    return passes in (None, "", EVERY_PASS)

"""``hloscope capture SCRIPT.py [ARGS...] -o DIR``: run a script with XLA dumping switched on."""

from __future__ import annotations

import sys

import click

from ..errors import ExitStatus
from ._app import cli, fail
from ._output import write_json

__all__ = ["capture_command", "TIMED_OUT"]

#: Exit status when the script ran past ``--timeout`` (the status GNU timeout uses).
TIMED_OUT = 124


@cli.command("capture", context_settings={"ignore_unknown_options": True})
@click.argument("script", type=click.Path(dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option(
    "-o",
    "--output",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False),
    help="Output folder (must be empty).",
)
@click.option(
    "--passes",
    metavar="REGEX",
    help="Also dump the module after every XLA pass matching REGEX ('.*': all).",
)
@click.option(
    "--timeout", type=float, metavar="S", help="Stop the script (and its children) after S seconds."
)
@click.option("--force", is_flag=True, help="Replace a previous capture in the output folder.")
@click.option("--json", "as_json", is_flag=True, help="Print the manifest as JSON.")
def capture_command(
    script: str,
    args: tuple[str, ...],
    out_dir: str,
    passes: str | None,
    timeout: float | None,
    force: bool,
    as_json: bool,
) -> None:
    """Run SCRIPT.py [ARGS...] and keep everything XLA compiles: DIR/dump (XLA's dump),
    DIR/stdout.txt, DIR/stderr.txt and DIR/manifest.json. Put script options that clash with
    these after `--`.

    Exit status: 0 captured; 1 the script failed (its partial dump is kept); 2 nothing could
    run (a missing script, a non-empty output folder); 124 the script timed out."""
    from ..capture.errors import CaptureError
    from ..capture.script import capture_script, count_modules

    try:
        result = capture_script(script, args, out_dir, passes=passes, timeout=timeout, force=force)
    except CaptureError as error:
        fail(error.one_line(), ExitStatus.BAD_INPUT)
    if as_json:  # the manifest first: a failed capture's says what failed
        write_json(result.manifest, default=str)
    problem = result.error_line()
    if problem is not None:
        fail(problem, TIMED_OUT if result.timed_out else ExitStatus.ERROR)
    if not as_json:
        modules = count_modules(result.dump_dir)
        files = result.manifest["dump_files"]
        click.echo(
            f"captured {script}: {modules} module{'s' if modules != 1 else ''}, {files} files in "
            f"{result.dump_dir} ({result.manifest['duration_s']:.1f} s)"
        )
    sys.exit(int(ExitStatus.OK))

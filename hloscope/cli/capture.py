"""``hloscope capture SCRIPT.py [ARGS...] -o DIR``: run a script with XLA dumping switched on;
``hloscope capture SCRIPT.py:FUNCTION -o DIR``: keep one function's capture."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NoReturn

import click

if TYPE_CHECKING:  # pragma: no cover
    from ..capture.script import ScriptCapture, ScriptSettings
    from ..devices import DeviceSpec

from ..errors import ExitStatus
from ._app import cli, fail
from ._device import COMPILE_LEAD, device_option
from ._output import json_option, write_json
from ._script_run import TIMED_OUT, timeout_option

__all__ = ["capture_command", "TIMED_OUT"]


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
@timeout_option
@click.option("--force", is_flag=True, help="Replace a previous capture in the output folder.")
@json_option("Print the manifest as JSON.")
@device_option(COMPILE_LEAD)
def capture_command(
    script: str,
    args: tuple[str, ...],
    out_dir: str,
    passes: str | None,
    timeout: float | None,
    force: bool,
    as_json: bool,
    device: DeviceSpec | None,
) -> None:
    """Run SCRIPT.py [ARGS...] and keep everything XLA compiles: DIR/dump (XLA's dump),
    DIR/stdout.txt, DIR/stderr.txt and DIR/manifest.json. Put script options that clash with
    these after `--`.

    SCRIPT.py:FUNCTION instead compiles that function with its example arguments (as every
    command does) and keeps its capture in DIR/capture, with the versions of jax, jaxlib and
    libtpu that compiled it and the compile's time per stage: a TARGET for every command, and
    one side of `hloscope diff OLD_DIR NEW_DIR` across two environments (run this with the
    old environment's hloscope).

    Exit status: 0 captured; 1 the script failed (its partial dump is kept); 2 nothing could
    run (a missing script, a non-empty output folder); 124 the script timed out."""
    from ..capture.script import ScriptSettings
    from ..capture.target import is_function_spec

    function = None
    if is_function_spec(script):
        script_path, function = _function_of(script, args, passes)
    elif device is not None:
        fail("--device compiles a SCRIPT.py:FUNCTION: give one", ExitStatus.BAD_INPUT)
    else:
        script_path = script
    where = str(device) if device is not None else None
    settings = ScriptSettings(
        passes=passes, timeout=timeout, force=force, function=function, device=where
    )
    result = _captured(script_path, args, out_dir, settings)
    _say_result(result, script, function, as_json)


def _captured(
    script_path: str, args: tuple[str, ...], out_dir: str, settings: ScriptSettings
) -> ScriptCapture:
    """The script run (or the function captured); nothing able to run is one line, exit 2."""
    from ..capture.errors import CaptureError
    from ..capture.script import capture_script

    try:
        return capture_script(script_path, args, out_dir, settings)
    except CaptureError as error:
        fail(error.one_line(), ExitStatus.BAD_INPUT)


def _say_result(
    result: ScriptCapture, script: str, function: str | None, as_json: bool
) -> NoReturn:
    """The manifest (--json) or one line of what was kept, and the exit status: a failed
    run's line on stderr with 1, 2 for how it was asked for, or 124 when it timed out."""
    if as_json:  # the manifest first: a failed capture's says what failed
        write_json(result.manifest, default=str)
    problem = result.error_line()
    if problem is not None:
        status = ExitStatus.USAGE if result.usage_error else ExitStatus.ERROR
        fail(problem, TIMED_OUT if result.timed_out else status)
    if not as_json:
        seconds = result.manifest["duration_s"]
        click.echo(f"captured {script}: {_what_was_kept(result, function)} ({seconds:.1f} s)")
    sys.exit(int(ExitStatus.OK))


def _function_of(spec: str, args: tuple[str, ...], passes: str | None) -> tuple[str, str]:
    """``SCRIPT.py:FUNCTION``'s script and function, when nothing asked is a script's alone:
    the function's capture goes to ``DIR/capture`` (the folder a cached ``SCRIPT.py:FUNCTION``
    target keeps)."""
    if args:
        fail(f"{spec}: a SCRIPT.py:FUNCTION target takes no script arguments", ExitStatus.USAGE)
    if passes is not None:
        fail("--passes dumps a script's passes; for a function: hloscope passes", ExitStatus.USAGE)
    script, function = spec.rsplit(":", 1)
    return script, function


def _what_was_kept(result: ScriptCapture, function: str | None) -> str:
    """Where the capture is: a function's folder, or a script's modules and dump files."""
    if function is not None:
        return str(result.out_dir / "capture")
    from ..capture.script import count_modules

    modules = count_modules(result.dump_dir)
    files = result.manifest["dump_files"]
    return f"{modules} module{'s' if modules != 1 else ''}, {files} files in {result.dump_dir}"

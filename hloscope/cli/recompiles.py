"""``hloscope recompiles SCRIPT.py [ARGS...] | SCRIPT.py:FUNCTION | DUMP``: who recompiled, how
often, exactly what changed each time, and what to do about it.

A script runs in a child process under the compile watcher (JAX's public hooks, TensorFlow's
trace log and XLA compile log; nothing is dumped); ``SCRIPT.py:FUNCTION`` calls that function
with its example arguments; a dump or capture folder (or an HLO file) is read offline, its
modules grouped by function and their entry signatures compared. ``--json`` prints the ledger
(:meth:`hloscope.analysis.recompiles.Ledger.to_dict`); ``--fail-over N`` exits 3 when the
user's functions compiled more than N times, for CI.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from ..errors import ExitStatus
from ._app import CliError, cli, fail
from ._count import count_option
from ._output import json_option, json_text
from ._script_run import TIMED_OUT, timeout_option

__all__ = ["recompiles_command"]

_FUNCTION_SPEC = re.compile(r"^(?P<script>.+\.py):(?P<function>[A-Za-z_][A-Za-z0-9_]*)$")


@cli.command("recompiles", context_settings={"ignore_unknown_options": True})
@click.argument("target")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@json_option("Print the ledger as JSON.")
@count_option(
    "--fail-over",
    "Exit 3 when the user's functions compiled more than N times (JAX's eager ops "
    "outside jit do not count).",
)
@timeout_option
@click.option(
    "-o",
    "--output",
    "out_dir",
    type=click.Path(file_okay=False),
    help="Keep the script's run in DIR: stdout.txt, stderr.txt, manifest.json, the watcher's "
    "records (recompiles.json) and the ledger --json prints (ledger.json).",
)
@click.option(
    "--vs",
    "compare_with",
    type=click.Path(file_okay=False),
    metavar="DIR",
    help="A run kept with -o DIR: each compile that missed JAX's persistent compilation cache "
    "names the part of the cache key that changed since (the computation and its first "
    "differing line, an XLA flag, the devices, compile options, jax/jaxlib/libtpu versions) "
    "and the fix.",
)
@click.option("--all", "show_all", is_flag=True, help="List every compile, not the first and last.")
@click.option(
    "--wide", is_flag=True, help="Print every cell and fix in full, however long the lines."
)
def recompiles_command(
    target: str,
    args: tuple[str, ...],
    as_json: bool,
    fail_over: int | None,
    timeout: float | None,
    out_dir: str | None,
    compare_with: str | None,
    show_all: bool,
    wide: bool,
) -> None:
    """Show every compile per function: how often, how long, which argument changed (shape,
    dtype, weak type, static value, pytree, sharding, a function made anew, cleared caches,
    config), and the fix (bucket sizes that cover the sizes seen, static arguments,
    input_signature...), and what JAX's persistent compilation cache did for each compile: hit,
    miss, not written and why, or off (no jax_compilation_cache_dir).

    TARGET is SCRIPT.py [ARGS...] (run under the watcher; put script options that clash with
    these after `--`), SCRIPT.py:FUNCTION (called with its example arguments), or a dump or
    capture folder (read offline: no weak types or static values there, only signatures).

    Exit status: 0 done; 1 the script failed (the ledger shows what it compiled) or TARGET is
    missing or a folder holds no dump; 3 more compiles than --fail-over N; 124 the script timed
    out."""
    output = _Output(as_json, show_all, wide)
    ledger, problem, timed_out = _ledger(target, args, timeout, out_dir, output, compare_with)
    sys.stdout.write(output.text(ledger))
    sys.stdout.flush()
    if problem is not None:
        fail(problem, TIMED_OUT if timed_out else ExitStatus.ERROR)
    if fail_over is not None and ledger.user_compiles > fail_over:
        fail(
            f"{ledger.user_compiles} compiles, more than --fail-over {fail_over}",
            ExitStatus.CHECK_FAILED,
        )
    sys.exit(int(ExitStatus.OK))


class _Output:
    """What the command prints of a ledger, made as early as the ledger exists.

    A script run hands over its ledger while the child's interpreter is still shutting down
    (``when_ready``); rendering it then, into a string printed once the child has ended, takes
    the rendering off the user's wait."""

    def __init__(self, as_json: bool, show_all: bool, wide: bool) -> None:
        self.as_json = as_json
        self.show_all = show_all
        self.wide = wide
        self._made: tuple[object, str] | None = None

    def import_renderer(self) -> None:
        if not self.as_json:
            from ..render import recompiles_text  # noqa: F401

    def text(self, ledger) -> str:
        if self._made is not None and self._made[0] is ledger:
            return self._made[1]
        if self.as_json:
            text = json_text(ledger.to_dict())
        else:
            from ..render.recompiles_text import rendered_ledger

            text = rendered_ledger(ledger, sys.stdout, show_all=self.show_all, wide=self.wide)
        self._made = (ledger, text)
        return text


def _ledger(
    target: str,
    args: tuple[str, ...],
    timeout: float | None,
    out_dir: str | None,
    output: _Output,
    compare_with: str | None = None,
):
    """The ledger of TARGET, the line saying why a script run failed, and whether it timed out.

    A script starts before anything else is imported: the ledger's code and the renderer
    load while it runs (``while_running``), and the text is made while the child shuts down
    (``when_ready``), so a short script pays for none of them."""
    if timeout is not None and timeout <= 0:
        raise CliError(f"--timeout must be positive, got {timeout:g}")
    script, function = _script_spec(target)
    if script is not None:
        if function is not None and args:
            raise CliError(f"{target}: a SCRIPT.py:FUNCTION target takes no script arguments")
        from ..drivers.script_recompiles import recompiles_of_script

        run = recompiles_of_script(
            script,
            args,
            function=function,
            timeout=timeout,
            out_dir=out_dir,
            while_running=output.import_renderer,
            when_ready=output.text,
            compare_with=compare_with,
        )
        return run.ledger, run.error_line(), run.run.timed_out
    from ..capture.prestart import discard

    discard()  # a child started for a script, in case the command line looked like one
    if args:
        raise CliError(f"{target}: only a SCRIPT.py target takes arguments (got {args[0]!r})")
    if out_dir is not None or timeout is not None or compare_with is not None:
        raise CliError("--output, --timeout and --vs apply to a script TARGET only")
    _check_dump_folder(target)
    from ..drivers.target_recompiles import ledger_of_target
    from ._target import open_target

    return ledger_of_target(open_target(target)), None, False


def _check_dump_folder(target: str) -> None:
    """A folder that holds no dump stops here, in one line, as ``hloscope ls`` does."""
    path = Path(target)
    if not path.is_dir():
        return
    from ..capture.target import Target, TargetKind
    from ..dump.index import load_dump

    if Target.resolve(target).kind is not TargetKind.DUMP:
        return
    index = load_dump(path)
    if not index.modules:
        unknown = len(index.unknown_files)
        hint = f" ({unknown} other file{'s' if unknown != 1 else ''})" if unknown else ""
        fail(f"{target}: no XLA dump files found{hint}", ExitStatus.ERROR)


def _script_spec(target: str) -> tuple[Path | None, str | None]:
    path = Path(target)
    if path.suffix == ".py" and path.is_file():
        return path, None
    found = _FUNCTION_SPEC.match(target)
    if found is not None and not path.exists():
        script = Path(found.group("script"))
        if not script.is_file():
            raise CliError(f"{found.group('script')}: no such file")
        return script, found.group("function")
    if path.suffix == ".py" and not path.exists():
        raise CliError(f"{target}: no such file")
    return None, None

"""The ``hloscope`` command group, its error handling and the console-script entry point.

Every command is a thin layer: resolve the TARGET, call the library, hand the result to a
renderer, return an exit status. Errors are handled here once, by class: an
:class:`~hloscope.errors.HloscopeError` prints its :meth:`~hloscope.errors.HloscopeError.one_line`
and exits with its ``exit_code``; an ``OSError`` (a file named on the command line that cannot
be read) is one line and exit 1; anything else is one line naming the exception, and
``HLOSCOPE_DEBUG=1`` shows its traceback. A reader that closes the pipe (``| head``) ends the
command quietly.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import re
import sys
import threading
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from typing import Any, NoReturn

import click

from ..errors import ExitStatus, HloscopeError
from .errors import CliError

__all__ = ["cli", "main", "fail", "PREFIX", "CliError"]

#: How every error line that has no file position starts.
PREFIX = "hloscope: error: "
DEBUG_ENV = "HLOSCOPE_DEBUG"
#: Where the command context keeps the targets a command opened (``_target.open_target``), so
#: that the group reports the module files they left out when the command ends.
OPENED = "hloscope.opened_targets"


def fail(message: str, status: int = ExitStatus.ERROR) -> NoReturn:
    """Print ``message`` as an error line and exit with ``status``."""
    click.echo(message if _has_location(message) else PREFIX + message, err=True)
    sys.exit(int(status))


def _has_location(message: str) -> bool:
    # `file:line:col: error: ...`, `path: error: ...` and `hloscope: error: ...` lines are
    # complete already; an error of XLA's that quotes an MLIR location after its status code
    # (`UNKNOWN: f.py:88:11: error: ...`) is not one.
    first = message.split("\n", 1)[0]
    return message.startswith(PREFIX) or (
        ": error: " in first and _STATUS_CODE.match(first) is None
    )


# XLA's and absl's status codes open their messages: `INVALID_ARGUMENT: `, `UNKNOWN: `.
_STATUS_CODE = re.compile(r"[A-Z][A-Z_]+: ")


class _Command(click.Command):
    """A click command whose usage errors always name it.

    Click's option parser raises some usage errors (``--sort`` given no value) with no context,
    which would point the user to ``hloscope --help`` instead of the command's own help.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as error:
            if error.ctx is None:
                error.ctx = ctx
            raise


#: Every command and the module of this package that defines it (a new command: add it here).
COMMAND_MODULES = {
    "bench": "bench",
    "cache": "cache",
    "capture": "capture",
    "check": "check",
    "collectives": "collectives",
    "compile-time": "compile_time",
    "diff": "diff",
    "explain": "explain",
    "explain-error": "explain_error",
    "extract": "extract",
    "fleet": "fleet",
    "fusions": "fusions",
    "graph": "graph",
    "ls": "ls",
    "memory": "memory",
    "passes": "passes",
    "profile": "profile",
    "recompiles": "recompiles",
    "report": "report",
    "summary": "summary",
    "try": "try_",
}


class _LazyCommands(MutableMapping[str, click.Command]):
    """The group's commands, each module imported when its command is first asked for.

    A command pays at start-up only for its own imports, not for every other command's (the
    HLO parser, the dump index): ``hloscope recompiles SCRIPT.py`` starts the script sooner.
    Looking one name up (what click does to run a command) imports that command's module,
    whose ``@cli.command`` registers it here; listing them (``--help``, a misspelt name)
    imports them all.
    """

    def __init__(self, modules: Mapping[str, str]) -> None:
        self._modules = modules
        self._loaded: dict[str, click.Command] = {}

    def _load(self, name: str) -> None:
        module = self._modules.get(name)
        if module is not None and name not in self._loaded:
            importlib.import_module(f"{__package__}.{module}")

    def __getitem__(self, name: str) -> click.Command:
        self._load(name)
        return self._loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        del self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        for name in self._modules:
            self._load(name)
        return iter(dict(self._loaded))

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Group(click.Group):
    """A click group that turns every error into one line on stderr and a non-zero exit.

    Click's own usage errors (an unknown option, a missing argument) get the same
    ``hloscope: error:`` prefix as everything else, and a pointer to ``--help``.
    """

    command_class = _Command

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        # click's own parameters, passed through as they came; only standalone_mode is ours.
        if not standalone_mode:  # a caller that handles click's exceptions itself
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            status = super().main(args, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as error:  # plain `hloscope`: the help
            click.echo(error.format_message())
            sys.exit(int(ExitStatus.OK))
        except click.UsageError as error:
            where = error.ctx.command_path if error.ctx is not None else "hloscope"
            fail(f"{error.format_message()} (see '{where} --help')", ExitStatus.BAD_INPUT)
        except click.ClickException as error:
            fail(error.format_message(), error.exit_code)
        except click.exceptions.Abort:
            fail("aborted")
        sys.exit(status if isinstance(status, int) else int(ExitStatus.OK))

    def invoke(self, ctx: click.Context):
        try:
            result = super().invoke(ctx)
        except SystemExit as done:
            if isinstance(done.__context__, BrokenPipeError):
                _quiet_broken_pipe()  # rich's Console exits 1 when its reader goes away
            _report_problems(ctx, done.code)
            raise
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KeyboardInterrupt:
            raise
        except BrokenPipeError:
            _quiet_broken_pipe()
        except HloscopeError as error:
            if os.environ.get(DEBUG_ENV):
                raise
            fail(error.one_line(), error.exit_code)
        except OSError as error:  # a missing or unreadable file named on the command line
            if os.environ.get(DEBUG_ENV):
                raise
            where = f"{error.filename}: " if getattr(error, "filename", None) else ""
            fail(f"{where}{error.strerror or error}", ExitStatus.USAGE)
        except Exception as error:  # noqa: BLE001 - the CLI never shows a raw traceback
            if os.environ.get(DEBUG_ENV):
                raise
            text = str(error).splitlines()[0] if str(error) else type(error).__name__
            fail(f"{text} ({type(error).__name__}; {DEBUG_ENV}=1 shows details)")
        _report_problems(ctx, 0)
        return result


def _report_problems(ctx: click.Context, code: object) -> None:
    """Say which module files the command left out, and make a clean exit status 1."""
    problems = [line for target in ctx.meta.get(OPENED, ()) for line in target.problems]
    ctx.meta.pop(OPENED, None)  # once: SystemExit passes through here on its way out
    for line in dict.fromkeys(problems):
        click.echo(f"{line} (left out)", err=True)
    if problems and code in (0, None):
        sys.exit(int(ExitStatus.ERROR))


def _quiet_broken_pipe() -> NoReturn:
    """The reader of stdout went away (``hloscope fusions T | head``): it read what it wanted,
    so the command ends quietly with status 0, as other command-line tools do (a pipeline
    under ``set -o pipefail`` would otherwise fail)."""
    # Python flushes stdout again at exit and would complain a second time; point it at
    # /dev/null first (the recipe of Python's signal documentation).
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(int(ExitStatus.OK))


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    # Read only when asked: the installed metadata costs every other command tens of
    # milliseconds, and a watched short script pays for each start.
    if not value or ctx.resilient_parsing:
        return
    from .._version import __version__

    click.echo(f"hloscope, version {__version__}")
    ctx.exit()


@click.group(
    cls=_Group,
    commands=_LazyCommands(COMMAND_MODULES),
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and exit.",
)
def cli() -> None:
    """See what XLA does to your code.

    TARGET arguments take an HLO text file, an XLA dump folder (--xla_dump_to), an
    `hloscope capture` folder, or a Python script (SCRIPT.py or SCRIPT.py:FUNCTION), which is
    captured first and cached. Of a target with several modules, commands read the main one
    (a function's own module, else the largest; --module NAME picks another).

    TPU questions without a TPU: with `pip install 'hloscope[tpu]'`, SCRIPT.py:FUNCTION
    --device tpu-v5e (any TPU, or a slice such as tpu-v5e:2x4) compiles the function with
    XLA:TPU itself on this machine, and the command reads that compile.

    Exit status: 0 done; 1 the work failed (a script crashed, a capture or compile failed, no
    dump in a folder); 2 the command line cannot be used (a usage error, a bad option value, a
    path that does not exist, a name that matches nothing, text that does not parse); 3 a
    check failed (--fail-on, --fail-over, unsupported ops).
    """


def main() -> None:
    """Entry point of the ``hloscope`` console script."""
    # A command builds one large object graph (millions of instructions) and exits: the cyclic
    # collector would only walk it again and again (a 54 MB module costs half a second per
    # full collection) to find the little garbage that reference counting does not free.
    gc.disable()
    try:
        cli(standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        _quiet_broken_pipe()
    except SystemExit as done:
        _exit_now(done)


def _exit_now(done: SystemExit) -> NoReturn:
    """End the process once the command is done, without freeing its objects one by one.

    Interpreter shutdown deallocates every object left alive, and a command's module is
    millions of them: a second after ``fusions`` on a 54 MB module has printed its last line,
    and two for ``diff``. Nothing is lost by skipping that: output is flushed here and the
    ``atexit`` handlers (temporary folders, library clean-ups) still run. Where another
    thread is still running, the normal exit waits for it as usual; a daemon thread (the
    capture's reaper of a child that is still exiting) is not waited for by either way out.
    """
    code = done.code
    if code is not None and not isinstance(code, int):
        raise done  # a message for SystemExit to print: Python's own way is the right one
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        _quiet_broken_pipe()
    if any(not thread.daemon for thread in threading.enumerate()[1:]):
        raise done
    atexit._run_exitfuncs()
    os._exit(code or 0)

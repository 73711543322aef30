"""Start a watched script's Python while the command line is still being read.

``hloscope recompiles SCRIPT.py`` costs a short script what happens before its first line:
the command imports click and parses its options (~20 ms), and only then starts the child,
which starts an interpreter and imports the compile watcher (~40 ms more). :func:`prestart`
starts the child at once, from the console script's first lines: the child imports the runner
and the watcher, then waits on a pipe for its orders (the runner's own command line, see
:mod:`hloscope.capture._runner`). :func:`hloscope.capture.script.capture_script` *adopts* that
child when it runs a script under the watcher in the same environment and folder; otherwise it
starts its own. A command that never adopts it (a dump folder, a usage error, ``--help``)
closes the pipe with :func:`discard` (or at exit), and the child ends without running
anything.

The child gets what :func:`watched_child_env` says a watched run gets, so an adopted child is
the child ``capture_script`` would have started, only sooner. This module imports only the
standard library and :mod:`.family`: it runs before the rest of hloscope is imported.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import subprocess
import sys

from .family import FAMILY_ENV, new_token

__all__ = [
    "ORDERS_FLAG",
    "RUNNER",
    "Prestarted",
    "prestart",
    "adopt",
    "discard",
    "child_env",
    "watched_child_env",
]

#: How the child is told to wait for its orders: ``_runner --orders-fd N``.
ORDERS_FLAG = "--orders-fd"
#: The module every script child runs (``python -m``).
RUNNER = "hloscope.capture._runner"


def child_env(xla_flags: str | None, *, full_locations: bool = True) -> dict[str, str]:
    """The environment of a script's child: this one, with ``xla_flags`` as ``XLA_FLAGS``,
    hloscope importable, unbuffered output and (``full_locations``) every frame in JAX's
    locations."""
    env = dict(os.environ)
    if xla_flags is not None:
        env["XLA_FLAGS"] = xla_flags
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    root = _package_root()
    if root not in paths:
        env["PYTHONPATH"] = os.pathsep.join([root, *paths])
    env.setdefault("PYTHONUNBUFFERED", "1")  # keep stdout.txt current if the script is killed
    # Every user frame of each op in the dump's locations (JAX keeps 10 or 100 by default);
    # the child is hloscope's, so the user's shell keeps its own setting. A watched run dumps
    # nothing: there the longer locations would only slow every lowering down.
    if full_locations:
        from .jaxlib_adapter import TRACEBACK_LIMIT_ENV, UNLIMITED_TRACEBACK

        env[TRACEBACK_LIMIT_ENV] = str(UNLIMITED_TRACEBACK)
    return env


@functools.cache
def _package_root() -> str:
    """The folder that must be importable in the child for ``-m hloscope.capture._runner``
    (found when first asked: the runner imports this module too, and needs no answer)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def watched_child_env() -> dict[str, str]:
    """The environment of a child that runs a script under the compile watcher (before its
    family token): the user's own ``XLA_FLAGS`` (nothing is dumped)."""
    return child_env(os.environ.get("XLA_FLAGS"), full_locations=False)


class Prestarted:
    """A child waiting for its orders, and this process's ends of its pipes.

    (A plain class: ``dataclasses`` imports ``inspect``, 4 ms before the child could start.)
    """

    __slots__ = (
        "process",
        "env",
        "token",
        "cwd",
        "orders",
        "stdout",
        "stderr",
        "ready",
        "ready_in_child",
    )

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        env: dict[str, str],
        token: str,
        cwd: str,
        pipes: tuple[int, int, int, int],
        ready_in_child: int,
    ) -> None:
        self.process = process
        self.env = env  # without the family token
        self.token = token
        self.cwd = cwd
        # This process's ends: the orders pipe's write end (the runner's command line, as
        # JSON, then closed), the read ends of the child's stdout and stderr, and of the
        # runner's --ready-fd pipe, whose write end is numbered ready_in_child in the child.
        self.orders, self.stdout, self.stderr, self.ready = pipes
        self.ready_in_child = ready_in_child

    def give_orders(self, runner_args: list[str]) -> None:
        """Send the runner's command line (``--info FILE ... SCRIPT.py ARGS``)."""
        import json

        data = json.dumps(runner_args).encode()
        fd, self.orders = self.orders, _CLOSED
        with os.fdopen(fd, "wb") as pipe:  # closed: the child reads to the end
            pipe.write(data)

    def close(self) -> None:
        """Give up on the child: closing its orders pipe ends it without running anything."""
        for fd in (self.orders, self.stdout, self.stderr, self.ready):
            if fd != _CLOSED:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.orders = self.stdout = self.stderr = self.ready = _CLOSED


_CLOSED = -1


_waiting: Prestarted | None = None


def prestart() -> None:
    """Start a watched-run child now, to be adopted by the next :func:`adopt` (once)."""
    global _waiting
    if _waiting is not None or os.name != "posix":  # pass_fds and sessions: POSIX only
        return
    token = new_token()
    env = watched_child_env()
    cwd = os.getcwd()
    orders_read, orders_write = os.pipe()
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    ready_read, ready_write = os.pipe()
    child_ends = (orders_read, out_write, err_write, ready_write)
    ours = (orders_write, out_read, err_read, ready_read)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", RUNNER, ORDERS_FLAG, str(orders_read)],
            cwd=cwd,
            env={**env, FAMILY_ENV: token},
            stdin=subprocess.DEVNULL,
            stdout=out_write,
            stderr=err_write,
            start_new_session=hasattr(os, "killpg"),
            pass_fds=(orders_read, ready_write),
        )
    except (OSError, ValueError):  # nothing lost: capture_script starts its own child
        for fd in (*child_ends, *ours):
            os.close(fd)
        return
    for fd in child_ends:
        os.close(fd)
    _waiting = Prestarted(process, env, token, cwd, ours, ready_write)
    atexit.register(discard)


def adopt(env: dict[str, str], cwd: str) -> Prestarted | None:
    """The waiting child, if it was started with ``env`` (the family token aside) in ``cwd``
    and is still alive; else ``None`` (a child that does not fit is discarded)."""
    global _waiting
    waiting, _waiting = _waiting, None
    if waiting is None:
        return None
    if waiting.env == env and waiting.cwd == cwd and waiting.process.poll() is None:
        return waiting
    _end(waiting)
    return None


def discard() -> None:
    """End the waiting child, if any, without running anything in it."""
    global _waiting
    waiting, _waiting = _waiting, None
    if waiting is not None:
        _end(waiting)


def _end(waiting: Prestarted) -> None:
    waiting.close()
    try:
        waiting.process.wait(timeout=2)
    except subprocess.TimeoutExpired:
        waiting.process.kill()
        waiting.process.wait()

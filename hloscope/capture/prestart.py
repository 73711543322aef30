"""Start a capture's Python while the command line is still being read.

A capture child spends its first moments on work that does not depend on what the command
decides: starting an interpreter, importing the runner and, for a function, numpy, ml_dtypes
and jaxlib's extension (most of ``import jax``: about 0.7 s). The command meanwhile imports
click, reads its options, checks the cache and hashes the script. :func:`prestart` starts the
child at once, from the console script's first lines; the child *warms up* (:class:`Warm`),
then waits on a pipe for its orders (the runner's own command line, see
:mod:`hloscope.capture._runner`). :func:`hloscope.capture.script.capture_script` *adopts* that
child when it runs the runner in the same environment and folder; otherwise it starts its own.
A command that never adopts it (a cached target, a dump folder, a usage error, ``--help``)
ends it with :func:`discard` (or at exit) before it runs anything of the user's.

Two warm-ups, one per kind of child:

* ``watched`` (``hloscope recompiles SCRIPT.py``): the compile watcher; the child gets what
  :func:`watched_child_env` says a watched run gets;
* ``function`` (``hloscope memory SCRIPT.py:FUNCTION [--device tpu-v5e]`` and every command
  that captures a function): numpy, ml_dtypes and jaxlib's extension, which read no setting a
  script could still change before its own ``import jax`` (``JAX_*`` variables are read by
  ``import jax`` itself, which the child leaves to the script); the child gets
  :func:`function_child_env`, with the device's backend's own variables (libtpu's for a TPU).

Either way an adopted child is the child ``capture_script`` would have started, only further
along. This module imports only the standard library and :mod:`.family`: it runs before the rest
of hloscope is imported. A function child is started with the environment every child gets at
its start (:func:`startup_env`: what the interpreter reads as it starts) and takes the rest of
:func:`function_child_env` itself, first thing (:func:`enter_function_env`), before it imports
anything that reads it: finding the device's backend loads the backend registry and its
plug-ins' entry points (a tenth of a second and more, the more packages are installed), which
the command would otherwise spend before its child could even start.
"""

from __future__ import annotations

import atexit
import contextlib
import enum
import functools
import os
import signal
import subprocess
import sys
from collections.abc import Mapping

from .family import FAMILY_ENV, new_token

__all__ = [
    "ORDERS_FLAG",
    "WARM_FLAG",
    "RUNNER",
    "Warm",
    "Prestarted",
    "prestart",
    "adopt",
    "discard",
    "child_env",
    "watched_child_env",
    "function_child_env",
    "startup_env",
    "enter_function_env",
    "DEVICE_FLAG",
    "RUN_REPORT_START",
]

#: How the child is told to wait for its orders: ``_runner --orders-fd N [--warm KIND]``.
ORDERS_FLAG = "--orders-fd"
WARM_FLAG = "--warm"
#: The device a function child takes its backend's environment for (``--warm function
#: --device tpu-v5e``).
DEVICE_FLAG = "--device"


class Warm(enum.StrEnum):
    """What a waiting child loads before its orders come (see the module's docstring)."""

    WATCHED = "watched"
    FUNCTION = "function"
    #: A function of a script that imports no jax (TensorFlow's, say): numpy and ml_dtypes.
    FUNCTION_NO_JAX = "function-no-jax"


#: The module every script child runs (``python -m``).
RUNNER = "hloscope.capture._runner"

#: What the runner reports of how the script's run went, each as it stands until the runner
#: says otherwise: the runner's report starts as this, and so does the capture's manifest.
RUN_REPORT_START: dict[str, object] = {
    "error": None,
    "error_text": None,
    "error_location": None,
    # Whether a function's script and example arguments loaded and its compile began.
    "compiling": False,
    "terminated_at": None,
    "usage_error": False,
}


def child_env(
    xla_flags: str | None, *, full_locations: bool = True, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of a script's child: this one (or ``base``), with ``xla_flags`` as
    ``XLA_FLAGS``, hloscope importable, unbuffered output and (``full_locations``) every frame
    in JAX's locations."""
    env = dict(os.environ if base is None else base)
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
        from ..backends import TRACEBACK_LIMIT_ENV, UNLIMITED_TRACEBACK

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


def function_child_env(
    device: str | None = None, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of a child that captures a function (before its family token): this one
    (or ``base``) with the user's own ``XLA_FLAGS`` (the compile's dump options travel with the
    compile), full locations, and what ``device``'s backend needs (libtpu's variables for a
    TPU)."""
    base = os.environ if base is None else base
    env = child_env(base.get("XLA_FLAGS"), full_locations=True, base=base)
    if device is not None:
        from ..backends import backend_for

        env = backend_for(device).child_environment(env)
    return env


def startup_env() -> dict[str, str]:
    """What every early child is started with: :func:`watched_child_env`, which holds all that
    the interpreter itself reads as it starts (``PYTHONPATH``, unbuffered output); a function
    child adds the rest of :func:`function_child_env` itself (:func:`enter_function_env`)."""
    return watched_child_env()


#: Variables the interpreter reads only as it starts: a child whose function environment
#: changes one cannot take it in place.
_READ_AT_START = ("PYTHON", "LD_")


def enter_function_env(device: str | None) -> dict[str, str] | None:
    """In a function child started with :func:`startup_env`: make this process's environment
    :func:`function_child_env` of ``device`` (as this child's parent computes it from the same
    variables), before anything that reads it is imported. Returns the environment when it
    changes a variable the interpreter read as it started (a backend's own ``PYTHONPATH``, say):
    the caller then executes itself anew with it; else ``None``."""
    wanted = function_child_env(device)  # from this environment: the family token stays
    changed = {k for k in wanted.keys() | os.environ.keys() if wanted.get(k) != os.environ.get(k)}
    if any(name.startswith(_READ_AT_START) for name in changed):
        return wanted
    for name in changed:
        if name in wanted:
            os.environ[name] = wanted[name]
        else:
            del os.environ[name]
    return None


class Prestarted:
    """A child waiting for its orders, and this process's ends of its pipes.

    (A plain class: ``dataclasses`` imports ``inspect``, 4 ms before the child could start.)
    """

    __slots__ = (
        "process",
        "warm",
        "device",
        "startup",
        "_env",
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
        warm: Warm,
        device: str | None,
        startup: dict[str, str],
        token: str,
        cwd: str,
        pipes: tuple[int, int, int, int],
        ready_in_child: int,
    ) -> None:
        self.process = process
        self.warm = warm
        self.device = device
        self.startup = startup  # what it was started with, without the family token
        self._env: dict[str, str] | None = None
        self.token = token
        self.cwd = cwd
        # This process's ends: the orders pipe's write end (the runner's command line, as
        # JSON, then closed), the read ends of the child's stdout and stderr, and of the
        # runner's --ready-fd pipe, whose write end is numbered ready_in_child in the child.
        self.orders, self.stdout, self.stderr, self.ready = pipes
        self.ready_in_child = ready_in_child

    @property
    def env(self) -> dict[str, str]:
        """The child's environment (without the family token): for a function child, the one it
        took itself from what it was started with (:func:`enter_function_env`), computed here
        the same way when first asked, after the child has started (the backend registry loads
        here then, not before)."""
        if self._env is None:
            if self.warm is Warm.WATCHED:
                self._env = self.startup
            else:
                self._env = function_child_env(self.device, base=self.startup)
        return self._env

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


def prestart(warm: Warm = Warm.WATCHED, device: str | None = None) -> None:
    """Start a child now, warmed up for ``warm`` (a function capture for ``device``), to be
    adopted by the next :func:`adopt` (once)."""
    global _waiting
    if _waiting is not None or os.name != "posix":  # pass_fds and sessions: POSIX only
        return
    token = new_token()
    env = startup_env()
    cwd = os.getcwd()
    orders_read, orders_write = os.pipe()
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    ready_read, ready_write = os.pipe()
    child_ends = (orders_read, out_write, err_write, ready_write)
    ours = (orders_write, out_read, err_read, ready_read)
    command = [sys.executable, "-m", RUNNER, ORDERS_FLAG, str(orders_read), WARM_FLAG, warm]
    if warm is not Warm.WATCHED and device is not None:
        command += [DEVICE_FLAG, device]
    try:
        process = subprocess.Popen(
            command,
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
    _waiting = Prestarted(process, warm, device, env, token, cwd, ours, ready_write)
    atexit.register(discard)


def adopt(env: dict[str, str], cwd: str) -> Prestarted | None:
    """The waiting child, if it was started with ``env`` (the family token aside) in ``cwd``
    and is still alive; else ``None`` (a child that does not fit is discarded)."""
    global _waiting
    waiting, _waiting = _waiting, None
    if waiting is None:
        return None
    if _fits(waiting, env) and waiting.cwd == cwd and waiting.process.poll() is None:
        return waiting
    _end(waiting)
    return None


def _fits(waiting: Prestarted, env: dict[str, str]) -> bool:
    try:
        return waiting.env == env
    except Exception:  # noqa: BLE001 - a device no backend knows: the command says so itself
        return False


def discard() -> None:
    """End the waiting child, if any, without running anything in it."""
    global _waiting
    waiting, _waiting = _waiting, None
    if waiting is not None:
        _end(waiting)


def _end(waiting: Prestarted) -> None:
    """Close its pipes; a watched child then ends by itself (its warm-up takes milliseconds),
    a function child still importing is killed: it has run nothing of the user's, and a cached
    command must not wait for numpy to load in a process it will never use."""
    waiting.close()
    grace = 2.0 if waiting.warm is Warm.WATCHED else 0.0
    try:
        waiting.process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            if hasattr(os, "killpg"):  # its own session: nothing else is in the group yet
                os.killpg(waiting.process.pid, signal.SIGKILL)
            else:  # pragma: no cover - POSIX only (prestart)
                waiting.process.kill()
        waiting.process.wait()

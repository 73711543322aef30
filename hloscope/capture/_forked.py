"""A script's child made by ``fork()`` alone: the runner without a second interpreter start.

A fresh ``python -m hloscope.capture._runner`` needs ~25 ms before its first line of Python
(more where ``site`` reads many ``.pth`` files); a fork of the command, made in its first
milliseconds before it has imported anything heavy, costs ~1 ms. The forked child makes itself
what that fresh interpreter would have been:

* its own session (``setsid``), stdin from ``/dev/null``, stdout and stderr on the pipes, and
  ``sys.stdin``/``sys.stdout``/``sys.stderr`` made anew the way Python makes them at start-up
  under the child's environment (``PYTHONUNBUFFERED``: unbuffered and written through; stderr
  ``backslashreplace`` errors on stderr);
* the child's environment in ``os.environ`` (so every process the script starts inherits it,
  the family token included).

When the runner returns, the child raises ``SystemExit`` up through the command's own frames
(which catch nothing), so its interpreter ends as ``python SCRIPT.py`` would: non-daemon
threads joined, the script's and its libraries' ``atexit`` handlers run, objects finalized.

:func:`can_fork` says when this is safe: on Linux, in a process with one thread and no JAX,
TensorFlow or PyTorch loaded (``fork`` copies one thread, and those runtimes do not survive
it). Elsewhere :mod:`hloscope.capture.prestart` starts a fresh interpreter instead.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence

TYPE_CHECKING = False  # typing itself costs the console script's start ~5 ms
if TYPE_CHECKING:
    from typing import NoReturn

__all__ = ["can_fork", "ForkedProcess", "fork_runner"]

#: Modules whose runtime (threads, device handles) a forked child could not use.
_FORK_UNSAFE = ("jax", "jaxlib", "tensorflow", "torch")
_POLL_S = 0.005


def can_fork() -> bool:
    """Whether this process may fork a runner (see the module's docstring)."""
    return (
        sys.platform.startswith("linux")
        and hasattr(os, "fork")
        and threading.active_count() == 1
        and not any(name in sys.modules for name in _FORK_UNSAFE)
    )


class ForkedProcess:
    """The parent's handle on a forked child: what ``capture_script`` uses of ``Popen``."""

    def __init__(self, pid: int, args: Sequence[str]) -> None:
        self.pid = pid
        self.args = list(args)
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere: it has ended, how is unknown
                self.returncode = -1
                return self.returncode
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if timeout is None:
            if self.returncode is None:
                try:
                    self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
                except ChildProcessError:
                    self.returncode = -1
            return self.returncode
        deadline = time.monotonic() + timeout
        while (code := self.poll()) is None:
            if time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(self.args, timeout)
            time.sleep(_POLL_S)
        return code

    def send_signal(self, number: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, number)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def fork_runner(
    runner_args: Sequence[str],
    env: Mapping[str, str],
    stdout: int,
    stderr: int,
    close: Sequence[int],
) -> ForkedProcess:
    """Fork a child that runs ``hloscope.capture._runner.main(runner_args)`` with ``env``, its
    stdout and stderr on the fds ``stdout`` and ``stderr``; it closes the fds in ``close``
    (this process's ends of its pipes) first. Returns this process's handle on it."""
    pid = os.fork()
    if pid:
        return ForkedProcess(pid, [sys.executable, "-m", "hloscope.capture._runner", *runner_args])
    _run_as_child(runner_args, env, stdout, stderr, close)


def _run_as_child(
    runner_args: Sequence[str],
    env: Mapping[str, str],
    stdout: int,
    stderr: int,
    close: Sequence[int],
) -> NoReturn:
    status = 1
    try:
        _become_child(env, stdout, stderr, close)
        from . import _runner

        sys.argv = [_runner.__file__, *runner_args]
        status = _runner.main(list(runner_args))
    except BaseException:  # a bug of the runner itself: said on the script's stderr
        import traceback

        traceback.print_exc()
    raise SystemExit(status)


def _become_child(env: Mapping[str, str], stdout: int, stderr: int, close: Sequence[int]) -> None:
    os.setsid()
    for fd in close:
        os.close(fd)
    devnull = os.open(os.devnull, os.O_RDONLY)
    for source, target in ((devnull, 0), (stdout, 1), (stderr, 2)):
        os.dup2(source, target)
        os.close(source)
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    errors = getattr(sys.stdout, "errors", None) or "strict"
    os.environ.clear()
    os.environ.update(env)
    unbuffered = bool(env.get("PYTHONUNBUFFERED"))
    streams = {
        "stdin": _stdio(0, "<stdin>", encoding, errors, unbuffered=unbuffered),
        "stdout": _stdio(1, "<stdout>", encoding, errors, unbuffered=unbuffered),
        "stderr": _stdio(2, "<stderr>", encoding, "backslashreplace", unbuffered=unbuffered),
    }
    for name, stream in streams.items():  # sys.__stdout__ too, as a fresh interpreter has it
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _stdio(fd: int, name: str, encoding: str, errors: str, *, unbuffered: bool) -> io.TextIOWrapper:
    """A standard stream as CPython makes one at start-up (``create_stdio``): on the fd, not
    closing it, ``\\n`` newlines; written through when unbuffered, else line-buffered for
    stderr and terminals; stdin buffered even so (``TextIOWrapper`` reads through ``read1``)."""
    reading = fd == 0
    raw = io.FileIO(fd, "rb" if reading else "wb", closefd=False)
    raw.name = name  # FileIO's name is settable: CPython sets it so
    buffer: io.RawIOBase | io.BufferedIOBase
    if reading:
        buffer = io.BufferedReader(raw)
    elif unbuffered:
        buffer = raw
    else:
        buffer = io.BufferedWriter(raw)
    stream = io.TextIOWrapper(
        buffer,  # CPython's unbuffered stdout wraps the FileIO itself
        encoding=encoding,
        errors=errors,
        newline="\n",
        line_buffering=not unbuffered and (fd == 2 or raw.isatty()),
        write_through=unbuffered,
    )
    setattr(stream, "mode", "r" if reading else "w")  # noqa: B010 - typeshed: read-only
    return stream

"""The runner's child process of a script capture: started (or adopted from the prestarted
one), watched until it ends or says "ready", stopped with what it left behind, with a spinner
for long runs. :func:`hloscope.capture.script.capture_script` drives it.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .family import FAMILY_ENV, new_token
from .prestart import RUNNER, Prestarted, adopt

_SPINNER_AFTER_S = 2.0  # show progress only for runs longer than this
#: SIGTERM -> SIGKILL
TERMINATE_GRACE_S = 2.0
_FALLBACK_POLL_S = 0.02  # where no pidfd says when the child ends


def _count_files(folder: Path) -> int:
    try:
        return sum(1 for _ in os.scandir(folder))
    except OSError:
        return 0


class _ExitWatch:
    """Waits for a child to end and wakes the moment it does.

    ``Popen.wait(timeout)`` sleeps in steps of up to 50 ms between checks, which a short
    script pays on every run (``hloscope recompiles`` promises a small cost); a Linux pidfd
    becomes readable when the process exits, so ``select`` returns at once. Elsewhere (or on
    a kernel without pidfds) it falls back to ``Popen.wait``.
    """

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.fd: int | None = None
        if hasattr(os, "pidfd_open"):
            with contextlib.suppress(OSError):
                self.fd = os.pidfd_open(process.pid)

    def wait(self, seconds: float, also: Sequence[int] = ()) -> list[int]:
        """Wait up to ``seconds`` for the exit or for one of ``also`` (pipes) to be readable;
        return those of ``also`` that are."""
        if self.fd is not None:
            readable = select.select([self.fd, *also], [], [], seconds)[0]
            return [fd for fd in readable if fd != self.fd]
        if also:  # no pidfd: a short select notices the pipes, the loop's poll() the exit
            return select.select(list(also), [], [], min(seconds, _FALLBACK_POLL_S))[0]
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=seconds)
        return []

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


@dataclass(slots=True)
class _Child:
    """A running child: its process, the read ends of its stdout and stderr, its ready pipe,
    the family token in its environment, and whether it was prestarted."""

    process: subprocess.Popen[bytes]
    stdout: int
    stderr: int
    ready: _ReadyPipe | None
    token: str
    prestarted: bool


def _launch(
    info_path: Path,
    mode: list[str],
    env: dict[str, str],
    work_dir: Path,
    *,
    adoptable: bool,
    ready: bool,
) -> _Child:
    """Run the runner with ``mode``: in the child prestarted while the command line was read,
    where there is one for this environment and folder (hloscope.capture.prestart: the same
    runner, only further along), else in a new one. ``ready``: give it a ``--ready-fd``."""
    waiting = adopt(env, str(work_dir)) if adoptable else None
    if waiting is not None:
        theirs = _ReadyPipe.of(waiting)
        try:
            waiting.give_orders(_runner_command(info_path, theirs, mode)[3:])
        except OSError:  # it died before its orders: start one as usual
            waiting.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                waiting.process.wait(timeout=TERMINATE_GRACE_S)
        else:
            return _Child(
                waiting.process, waiting.stdout, waiting.stderr, theirs, waiting.token, True
            )
    token = new_token()
    pipe = _ReadyPipe() if ready else None
    command = _runner_command(info_path, pipe, mode)
    process, out_read, err_read = _start(command, work_dir, {**env, FAMILY_ENV: token}, pipe)
    return _Child(process, out_read, err_read, pipe, token, False)


def _start(
    command: list[str], work_dir: Path, env: dict[str, str], ready: _ReadyPipe | None
) -> tuple[subprocess.Popen[bytes], int, int]:
    """Start the child with its stdout and stderr on pipes; return it and their read ends."""
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    try:
        process = subprocess.Popen(
            command,
            cwd=work_dir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out_write,
            stderr=err_write,
            start_new_session=hasattr(os, "killpg"),
            pass_fds=(ready.child_end,) if ready is not None else (),
        )
    except BaseException:
        for fd in (out_read, err_read):
            os.close(fd)
        if ready is not None:
            ready.close()
        raise
    finally:
        os.close(out_write)
        os.close(err_write)
    if ready is not None:
        ready.close_child_end()
    return process, out_read, err_read


def _runner_command(info_path: Path, ready: _ReadyPipe | None, mode: list[str]) -> list[str]:
    """``python -m hloscope.capture._runner --info FILE [--ready-fd N] MODE...``."""
    command = [sys.executable, "-m", RUNNER, "--info", str(info_path)]
    if ready is not None:
        command += ["--ready-fd", str(ready.child_end)]
    return command + mode


class _ReadyPipe:
    """The pipe on which the runner says that its results are written (``--ready-fd``)."""

    def __init__(self) -> None:
        self.parent_end: int | None
        self.parent_end, self.child_end = os.pipe()
        self._child_open = True

    @classmethod
    def of(cls, waiting: Prestarted) -> _ReadyPipe:
        """The prestarted child's pipe (its write end is open in the child only)."""
        pipe = cls.__new__(cls)
        pipe.parent_end, pipe.child_end, pipe._child_open = (
            waiting.ready,
            waiting.ready_in_child,
            False,
        )
        return pipe

    def close_child_end(self) -> None:
        if self._child_open:
            os.close(self.child_end)
            self._child_open = False

    def fds(self) -> tuple[int, ...]:
        return (self.parent_end,) if self.parent_end is not None else ()

    def said_ready(self, readable: Sequence[int]) -> bool:
        """Whether the runner has just said so (once: the pipe is closed after its line, or
        after an end without one, a runner that died first)."""
        if self.parent_end is None or self.parent_end not in readable:
            return False
        line = os.read(self.parent_end, 64)
        os.close(self.parent_end)
        self.parent_end = None
        return bool(line)

    def close(self) -> None:
        self.close_child_end()
        if self.parent_end is not None:
            os.close(self.parent_end)
            self.parent_end = None


def _let_go(process: subprocess.Popen[bytes]) -> None:
    """A child that wrote everything and is exiting: kill what is left of its process group
    (nothing, normally) and reap it in the background instead of waiting for its end."""
    if hasattr(os, "killpg"):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    threading.Thread(target=process.wait, name="hloscope-reap", daemon=True).start()


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the child and everything it started: SIGTERM to the group, then SIGKILL."""
    if process.poll() is not None:
        return
    group = hasattr(os, "killpg")
    try:
        if group:
            os.killpg(process.pid, signal.SIGTERM)
        else:  # pragma: no cover - Windows
            process.terminate()
        process.wait(timeout=TERMINATE_GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    except ProcessLookupError:
        return
    if group:
        # Also reaps grandchildren that ignored SIGTERM after the leader exited.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    elif process.poll() is None:  # pragma: no cover - Windows
        process.kill()
    process.wait()


class _Progress:
    """A rich spinner with elapsed time and dump-file count, for runs longer than ~2 s on a TTY."""

    def __init__(
        self, label: str, dump_dir: Path | None, enabled: bool | None, console: Any = None
    ) -> None:
        self.label = label
        self.dump_dir = dump_dir
        self.enabled = enabled
        self.console = console  # a rich Console; default: stderr
        self.start = time.monotonic()
        self._status: Any = None
        self._last_count = 0.0
        self._files = 0

    def tick(self) -> None:
        elapsed = time.monotonic() - self.start
        if elapsed < _SPINNER_AFTER_S:
            return
        if self._status is None:
            if self.console is None:
                from rich.console import Console

                self.console = Console(stderr=True)
            console = self.console
            if self.enabled is None:
                self.enabled = console.is_terminal
            if not self.enabled:
                return
            self._status = console.status("")
            self._status.start()
        if self.dump_dir is not None and elapsed - self._last_count >= 0.5:
            self._files, self._last_count = _count_files(self.dump_dir), elapsed
        files = f", {self._files} dump files" if self.dump_dir is not None else ""
        self._status.update(f"capturing {self.label}: {elapsed:.0f} s{files}")

    def close(self) -> None:
        if self._status is not None:
            self._status.stop()


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


# ---- the CLI's view ------------------------------------------------------------------------------

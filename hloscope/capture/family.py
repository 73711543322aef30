"""Every process a captured script started, found and stopped, however it tried to leave.

A script may start helpers that outlive it: a data-loader worker left behind when the script
exits, or a daemon that called ``setsid()`` and so left the script's process group. A capture
must leave nothing running (a leftover would keep a GPU busy, or keep writing into the
capture's folder). Two nets catch them:

* the script runs as the leader of a new session and process group, so one ``killpg`` reaches
  every ordinary child and grandchild, also after the leader itself has exited;
* the script's environment carries a token (:data:`FAMILY_ENV`, unique per capture), which
  every descendant inherits; on Linux, ``/proc/PID/environ`` shows it even for a process that
  changed its session or was re-parented to init. Only a process that replaced its whole
  environment before ``exec`` escapes this net.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable

__all__ = ["FAMILY_ENV", "new_token", "members", "stop_family"]

#: The variable that marks a capture's processes.
FAMILY_ENV = "HLOSCOPE_CAPTURE_FAMILY"
_PROC = "/proc"
_GRACE_S = 2.0
_POLL_S = 0.05


def new_token() -> str:
    """A token to put in the script's environment as ``FAMILY_ENV=<token>``: 32 random hex
    digits (``os.urandom``: the ``uuid`` module would cost a prestarted child 2 ms of imports)."""
    return os.urandom(16).hex()


def members(token: str, exclude: Iterable[int] = ()) -> list[int]:
    """The pids of live processes whose environment carries ``token`` (Linux; else none),
    but for ``exclude``."""
    needle = f"{FAMILY_ENV}={token}".encode()
    found = []
    try:
        names = os.listdir(_PROC)
    except OSError:  # no /proc: not Linux
        return []
    skip = {os.getpid(), *exclude}
    for name in names:
        if not name.isdigit() or int(name) in skip:
            continue
        try:
            with open(f"{_PROC}/{name}/environ", "rb") as f:
                environ = f.read()
        except OSError:  # gone, or not ours to read
            continue
        if needle in environ.split(b"\0") and not _is_zombie(name):
            found.append(int(name))
    return found


def _is_zombie(pid: str) -> bool:
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return True
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] in (b"Z", b"X")


def _signal_all(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def stop_family(token: str, group: int | None = None, exclude: Iterable[int] = ()) -> int:
    """Stop every process of the family: SIGTERM, a grace period, then SIGKILL.

    ``group`` is the script's process-group id (its pid), signalled as a whole too.
    ``exclude``: processes not waited for (a child that is exiting by itself). Returns how many
    processes were still running when this was called.
    """
    exclude = tuple(exclude)
    left = members(token, exclude)
    if group is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.killpg(group, signal.SIGTERM)
    _signal_all(left, signal.SIGTERM)
    deadline = time.monotonic() + _GRACE_S
    while time.monotonic() < deadline and members(token, exclude):
        time.sleep(_POLL_S)
    if group is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.killpg(group, signal.SIGKILL)
    # SIGKILL lands asynchronously, and a process caught in the middle of exec may show no
    # environment for a moment: look again, and kill again, until none is left (or time's up).
    deadline = time.monotonic() + 2 * _GRACE_S
    while True:
        running = members(token, exclude)
        if not running or time.monotonic() > deadline:
            break
        _signal_all(running, signal.SIGKILL)
        time.sleep(_POLL_S)
    return len(left)

"""The checks of a big module's text, run in forked processes while this one reads it.

The whole-module path (:mod:`._whole`) reads a printed module in chunks of bodies: one regex
pass makes each chunk's columns (names, shapes, opcodes...), then the bulk path's checks run
over them (known opcodes, one ROOT, defined operands, plain attributes, known callees). The
checks are a third of the parse and only answer yes or no, so on a machine with cores to
spare they run elsewhere: each forked child reads a share of the chunks again and checks it,
and says one byte; the parent meanwhile only makes the columns, and keeps the module only if
every child said yes. A child that says no, or fails in any way, declines the module exactly
as a failed check in the parent would: the module parser reads it again and reports errors.

Forking is used only where it is safe and pays: Linux, no other Python thread (the child runs
nothing but regular expressions and set operations, which take no lock another thread could
hold), no JAX, TensorFlow or PyTorch imported (:data:`_FRAMEWORKS`), at least
:data:`MIN_CPUS` CPUs this process may run on, and a module of at least :data:`MIN_ROWS`
instructions (on smaller ones the fork cost what the checks took: a 12k-op module's parse was
no faster). ``HLOSCOPE_PARSE_WORKERS`` sets the number of children (0: never fork; on any
POSIX system); by default one per idle CPU but one, at most :data:`MAX_WORKERS`. One of them
answers whether any instruction would be renamed (:func:`._names.names_distinct`). On the
54 MB module (402k ops) the parse of this process took 0.58-0.65 s of CPU with 2 to 4 children
instead of 0.95-1.06 s; the children took 1.5-1.7 s (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import TypeVar

__all__ = ["ForkedChecks", "fork_checks", "workers"]

T = TypeVar("T")

WORKERS_ENV = "HLOSCOPE_PARSE_WORKERS"
MIN_CPUS = 4
MAX_WORKERS = 8
# Below this many instructions (rows) a fork costs about what the checks it saves took.
MIN_ROWS = 65536


def workers() -> int:
    """How many children to fork for the checks: ``HLOSCOPE_PARSE_WORKERS`` if set (0 or a
    value that is not a number: none), else one per idle CPU (by the load average) beyond the
    first, on Linux with at least :data:`MIN_CPUS` CPUs, at most :data:`MAX_WORKERS`."""
    if not hasattr(os, "fork"):
        return 0
    setting = os.environ.get(WORKERS_ENV)
    if setting is not None:
        try:
            return max(0, int(setting))
        except ValueError:
            return 0
    if not sys.platform.startswith("linux"):
        return 0  # elsewhere (macOS) a fork without exec is not safe in general
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux: the machine's count
        cpus = os.cpu_count() or 1
    if cpus < MIN_CPUS:
        return 0
    # CPUs other programs keep busy are none to spare: children there would only slow this
    # process down (on a 2-core machine under a load of 12 the parse's wall time tripled).
    idle = int(cpus - os.getloadavg()[0])
    return max(0, min(idle - 1, MAX_WORKERS))


class ForkedChecks:
    """Children running checks: :meth:`passed` waits for their answers, :meth:`close` ends any
    still running (on the parent's way out for another reason)."""

    __slots__ = ("_children",)

    def __init__(self, children: list[tuple[int, int]]) -> None:
        self._children = children  # (pid, the read end of the child's pipe)

    def passed(self) -> bool:
        """Whether every child checked its share and found nothing wrong."""
        answers = []
        while self._children:
            pid, fd = self._children.pop()
            try:
                answers.append(os.read(fd, 1))  # b"" from a child that died before it said
            finally:
                os.close(fd)
                _reap(pid)
        return all(answer == b"1" for answer in answers)

    def close(self) -> None:
        """Stop and reap the children not waited for yet."""
        while self._children:
            pid, fd = self._children.pop()
            os.close(fd)
            with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
                os.kill(pid, signal.SIGKILL)
            _reap(pid)


def _reap(pid: int) -> None:
    # A program's own SIGCHLD handler may have reaped the child already.
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def fork_checks(
    check: Callable[[T], bool], items: Sequence[T], weights: Sequence[int], spare: int = 0
) -> ForkedChecks | None:
    """``check`` of every item, run in forked children (each a share of the items of about
    equal total weight), as many as :func:`workers` but ``spare`` (kept for other checks), or
    None where forking is not used (see the module docstring): the caller then checks the
    items itself."""
    count = min(workers() - spare, len(items))
    if count < 1 or sum(weights) < MIN_ROWS or not _quiet_process():
        return None
    children: list[tuple[int, int]] = []
    for share in _shares(items, weights, count):
        child = _fork(check, share)
        if child is None:  # no more processes: the parent checks everything itself
            ForkedChecks(children).close()
            return None
        children.append(child)
    return ForkedChecks(children)


# Frameworks whose runtimes object to a fork: JAX warns at every fork once its backends run
# (its threads would deadlock a child that used them; ours never does, but the warning would
# reach the user all the same). Their programs parse without forking.
_FRAMEWORKS = ("jax", "tensorflow", "torch")


def _quiet_process() -> bool:
    """No other Python thread, and no framework of :data:`_FRAMEWORKS` imported."""
    return threading.active_count() == 1 and not any(map(sys.modules.__contains__, _FRAMEWORKS))


def _fork(check: Callable[[T], bool], share: Sequence[T]) -> tuple[int, int] | None:
    read_end, write_end = os.pipe()
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns of fork in a process with other (native) threads; the
            # child touches nothing of theirs (see the module docstring).
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # the child: one byte, then gone without running any clean-up of the parent's
        answer = b"0"
        try:
            os.close(read_end)
            if all(map(check, share)):
                answer = b"1"
        except BaseException:  # noqa: BLE001 - any failure is a "no", said to the parent
            pass
        finally:
            try:
                os.write(write_end, answer)
            finally:
                os._exit(0)
    os.close(write_end)
    return pid, read_end


def _shares(items: Sequence[T], weights: Sequence[int], count: int) -> list[Sequence[T]]:
    """``items`` cut into ``count`` runs (or fewer) of about equal total weight, in order."""
    bounds = list(accumulate(weights, initial=0))
    total = bounds[-1]
    shares = []
    start = 0
    for k in range(1, count + 1):
        stop = start
        while stop < len(items) and (k == count or bounds[stop + 1] * count <= total * k):
            stop += 1
        if stop == start and start < len(items):
            stop += 1  # an item heavier than a share is a share of its own
        if stop > start:
            shares.append(items[start:stop])
        start = stop
    return shares

"""The checks of a big module's text, run in forked processes while this one waits.

The whole-module path (:mod:`._whole`) reads a printed module in chunks of bodies: one regex
pass makes each chunk's columns (names, shapes, opcodes...), then the bulk path's checks run
over them (known opcodes, one ROOT, defined operands, plain attributes, known callees). On a
machine with cores to spare, all chunks but the first go to forked children: each reads a share
of the chunks, checks it, and sends back what it found of each body in a few bytes (its opcode
and location counts, :mod:`marshal`'s format), or a "no". The parent makes no columns of those
bodies at all: they are read from their text on first use (:class:`._bulk.TextBody`), and a
summary that only counts is answered from what the children sent. A child that says no, or
fails in any way, declines the module exactly as a failed check in the parent would: the module
parser reads it again and reports errors.

Forking is used only where it is safe and pays: Linux, no other Python thread (the child runs
nothing but regular expressions and set operations, which take no lock another thread could
hold), no JAX, TensorFlow or PyTorch imported (:data:`_FRAMEWORKS`), at least
:data:`MIN_CPUS` CPUs this process may run on, and a module of at least :data:`MIN_ROWS`
instructions. ``HLOSCOPE_PARSE_WORKERS`` sets the number of children (0: never fork; on any
POSIX system); by default one per idle CPU but one, at most :data:`MAX_WORKERS`
(benchmarks/RESULTS.md has the times).
"""

from __future__ import annotations

import contextlib
import marshal
import os
import select
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from itertools import accumulate, chain
from typing import Any, TypeVar

__all__ = ["ForkedChecks", "fork_checks", "fork_each", "workers"]

T = TypeVar("T")

WORKERS_ENV = "HLOSCOPE_PARSE_WORKERS"
MIN_CPUS = 4
MAX_WORKERS = 12
# Below this many instructions (rows) the forks cost about what they take off this process: a
# fork copies the process's page tables (3.5 ms in a 262 MB process here), and MobileNetV2's
# 12k-row parse there took 29 ms alone, 21, 27 and 33 ms with 1, 2 and 3 children. Each child
# gets at least ROWS_PER_CHILD rows.
MIN_ROWS = 65536
ROWS_PER_CHILD = 2048


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


def planned_children(rows: int) -> int:
    """How many children :func:`fork_checks` would fork for items of ``rows`` instructions:
    none below :data:`MIN_ROWS` or where forking is not safe, else as many as
    :func:`workers`, at most one per :data:`ROWS_PER_CHILD` rows."""
    if rows < MIN_ROWS or not _quiet_process():
        return 0
    return min(workers(), max(1, rows // ROWS_PER_CHILD))


class ForkedChecks:
    """Children running checks: :meth:`results` waits for their answers, :meth:`close` ends
    any still running (on the parent's way out for another reason)."""

    __slots__ = ("_children",)

    def __init__(self, children: list[tuple[int, int]]) -> None:
        self._children = children  # (pid, the read end of the child's pipe), in share order

    def results(self, take: Callable[[list[Any]], object] | None = None) -> list[Any] | None:
        """What ``check`` returned for each item, in order, if every child checked its share
        and found nothing wrong; else None (the children still running are stopped). Each
        child's results are read as soon as it has sent them, whichever child that is, and
        handed to ``take`` then (work on them overlaps the slower children's)."""
        pending: dict[int, tuple[int, int, list[bytes]]] = {
            fd: (n, pid, []) for n, (pid, fd) in enumerate(self._children)
        }
        shares: list[list[Any]] = [[] for _ in self._children]
        try:
            while pending:
                ready, _, _ = select.select(list(pending), [], [])
                for fd in ready:
                    n, pid, parts = pending[fd]
                    data = os.read(fd, 1 << 20)
                    if data:
                        parts.append(data)
                        continue
                    del pending[fd]  # b"" at once from a child that died before it said
                    os.close(fd)
                    _reap(pid)
                    answer = _answer(b"".join(parts))
                    if answer is None:
                        return None
                    shares[n] = answer
                    if take is not None:
                        take(answer)
        finally:
            self._children = [(pid, fd) for fd, (_, pid, _) in pending.items()]
            self.close()
        return list(chain.from_iterable(shares))

    def passed(self) -> bool:
        """Whether every child checked its share and found nothing wrong."""
        return self.results() is not None

    def close(self) -> None:
        """Stop and reap the children not waited for yet."""
        while self._children:
            pid, fd = self._children.pop()
            os.close(fd)
            with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
                os.kill(pid, signal.SIGKILL)
            _reap(pid)


def _answer(answer: bytes) -> list[Any] | None:
    """A child's results; None for its "no" (or an answer cut short)."""
    if answer[:1] != b"1":
        return None
    try:
        return marshal.loads(answer[1:])
    except (EOFError, ValueError, TypeError):  # cut short: the child died as it wrote
        return None


def _reap(pid: int) -> None:
    # A program's own SIGCHLD handler may have reaped the child already.
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def fork_checks(
    check: Callable[[T], Any],
    items: Sequence[T],
    weights: Sequence[int],
    rows: int | None = None,
) -> ForkedChecks | None:
    """``check`` of every item, run in forked children (each a share of the items of about
    equal total weight: their text's length, say), as many as :func:`workers`, or None where
    forking is not used (see the module docstring; ``rows``: the instructions the items hold,
    by default the weights' sum): the caller then checks the items itself. ``check`` says no
    with a false value; anything else it returns comes back from
    :meth:`ForkedChecks.results` (``True``, or what :mod:`marshal` can carry: the answers
    travel in its format)."""
    rows = sum(weights) if rows is None else rows
    count = min(planned_children(rows), len(items))
    if count < 1:
        return None
    children: list[tuple[int, int]] = []
    for share in _shares(items, weights, count):
        child = _fork(check, share)
        if child is None:  # no more processes: the parent checks everything itself
            ForkedChecks(children).close()
            return None
        children.append(child)
    return ForkedChecks(children)


def fork_each(check: Callable[[T], Any], items: Sequence[T]) -> ForkedChecks | None:
    """``check`` of each item in a forked child of its own (the caller has asked
    :func:`planned_children` how many), or None where a fork failed: the caller then does the
    work itself. The answers come back as from :func:`fork_checks`."""
    children: list[tuple[int, int]] = []
    for item in items:
        child = _fork(check, [item])
        if child is None:
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


def _fork(check: Callable[[T], Any], share: Sequence[T]) -> tuple[int, int] | None:
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
    if pid == 0:  # the child: its answer, then gone without running any clean-up of the parent's
        answer = b"0"
        try:
            os.close(read_end)
            results = list(map(check, share))
            if all(results):
                answer = b"1" + marshal.dumps(results)
        except BaseException:  # noqa: BLE001 - any failure is a "no", said to the parent
            pass
        finally:
            try:
                _write_all(write_end, answer)
            finally:
                os._exit(0)
    os.close(write_end)
    return pid, read_end


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


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

"""The processes of a multi-host job did not meet: the coordination service's barriers.

JAX's multi-host runtime (``jax.distributed.initialize``) has one process (task 0) run a
coordination service that every process registers with, then meets at barriers. When one
does not come -- it crashed first, was never launched, was given other arguments, or is
still installing or loading -- the others wait and then fail with ``DEADLINE_EXCEEDED``:

* ``Barrier timed out. Barrier_id: PjRT_Client_Connect. Timed out task names:
  /job:jax_worker/replica:0/task:1 ...`` (jaxlib 0.4), ``Barrier timed out. Id:
  [Init]Wait_for_all_tasks_to_register::0. This usually happens because a task triggered the
  barrier too early or too slowly`` (later ones), the same from a barrier of the program's own
  (``multihost_broadcast_sync0``);
* ``Stopping coordination service as cluster registration failed``;
* ``Terminating process because the JAX distributed service detected fatal errors`` (another
  task died) and ``Failed to send RPC to coordination service`` (task 0 died or is
  unreachable);
* a task's ``heartbeat timeout`` (the service marked it dead: crashed, preempted, or stalled
  longer than the heartbeat allows) and ``Coordination service agent in error status: CODE``
  (this process's agent gave up: registration or a barrier timed out);
* XLA's rendezvous that waits for the threads of a collective (``This thread has been waiting
  for `initialize clique ...` ... may be stuck. Expected 8 threads to join the rendezvous``):
  the processes did not all run the same collective.

The barrier, the tasks that did not arrive and the status are read from the message; the
advice is about the job, not the program: every host launched, the same arguments to
``jax.distributed.initialize``, the first (or the missing) worker's own log.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Platform, Reason
from ..advice import AdviceKind
from ..build import Kind, log_line
from ..catalogue import words_of
from ..log import Log, status_before
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)
# The task names follow the message, one a line (or `\n`-escaped inside a gRPC payload).
_TASKS_AFTER = 2048
# jax.distributed barriers JAX itself opens (the rest are the program's own).
_RUNTIME_BARRIERS = ("PjRT_Client_Connect", "[Init]", "Wait_for_all_tasks", "RegisterTask")


def _missing(tasks: list[str]) -> str:
    if not tasks:
        return ""
    return f" (and those of the tasks that never arrived: {', '.join(tasks)})"


def _tasks(log: Log, m: re.Match[str]) -> list[str]:
    """The tasks the message names after it, each once, in its order."""
    window = log.text[m.end() : m.end() + _TASKS_AFTER]
    cut = window.find("Additional GRPC error information")
    names = [f"task {t['task']}" for t in _RE.task.finditer(window if cut < 0 else window[:cut])]
    return list(dict.fromkeys(names))


def _distributed(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    start = log.line_start(m.start())
    if m["rpc"] and "Failed to send" not in log.before_on_line(m.start())[-20:]:
        return  # another sentence about the RPC
    if m["coord"] and (
        "error information" in log.before_on_line(m.start())
        or not log.before_on_line(m.start()).rstrip().endswith(("RPC: /tensorflow.", "calling"))
    ):
        return  # the gRPC detail of a message read from its own words, or code naming it
    if m["agent_rpc"] and not log.before_on_line(m.start()).rstrip().endswith("Failed to"):
        return  # prose about connecting
    if m["rpc"] and "Terminating process because" in log.before_on_line(m.start()):
        return  # the status of the fatal-error line read from its opening
    if m["registration"] and "Barrier timed out" in log.text[m.end() : m.end() + _TASKS_AFTER]:
        return  # the barrier's own message follows ("Original error: ..."), naming it
    if m["coord_payload"] and _read_before(log, m):
        return  # the payload of a message read from its own words
    if m["tpu_wait"]:
        yield _tpu_wait(log, m)
        return
    tasks = _tasks(log, m) if m["barrier"] else []
    barrier = m["barrier"] or ""
    if m["rendezvous"]:
        yield from _rendezvous(log, m, start)
        return
    if m["init_order"]:
        op, advice = "jax.distributed.initialize", (_TEXT.init_first, AdviceKind.CHECK_HOSTS)
    elif m["fatal"] or m["rpc"]:
        op, advice = "coordination service", (_TEXT.died, AdviceKind.CHECK_HOSTS)
    elif m["heartbeat"]:
        dead = _tasks_on_line(log, start)
        text = _TEXT.heartbeat.format(missing=f" ({', '.join(dead)})" if dead else "")
        op, advice = "coordination service", (text, AdviceKind.CHECK_HOSTS)
    elif any(m[g] for g in ("agent", "coord", "kv", "watch", "agent_rpc", "coord_payload")):
        op = "coordination service"
        if m["coord_rpc"]:
            op = f"coordination service {m['coord_rpc']}"
        advice = (_TEXT.hosts.format(missing=""), AdviceKind.CHECK_HOSTS)
    elif barrier and not barrier.startswith(_RUNTIME_BARRIERS):
        named = f" ({', '.join(tasks)})" if tasks else ""
        text = _TEXT.own_barrier.format(barrier=barrier, missing=named)
        op, advice = f"barrier {barrier}", (text, AdviceKind.CHECK_HOSTS)
    else:
        op = f"barrier {barrier}" if barrier else "cluster registration"
        advice = (_TEXT.hosts.format(missing=_missing(tasks)), AdviceKind.CHECK_HOSTS)
    hints = [f"waited for: {', '.join(tasks)}"] if tasks else []
    yield _KIND.failure(
        log,
        m.start(),
        op=op,
        advice=advice,
        node=", ".join(tasks),
        status=status_before(log, m.start()) or _status_in(log, start, m.start()),
        hints=hints,
    )


def _read_before(log: Log, m: re.Match[str]) -> bool:
    """Whether words of this family open a message shortly before ``m`` (its payload's)."""
    window = log.text[max(0, m.start() - _TASKS_AFTER) : m.start()]
    return any(not found["coord_payload"] for found in _RE.opening.finditer(window))


def _tpu_wait(log: Log, m: re.Match[str]) -> Failure:
    return _KIND.failure(
        log,
        m.start(),
        op="TPU backend initialization",
        advice=(_TEXT.tpu_wait, AdviceKind.CHECK_HOSTS),
        device="tpu",
        platform=Platform.TPU,
        hints=["JAX warns and waits: the hosts that did not start their TPU runtime"],
    )


def _tasks_on_line(log: Log, start: int) -> list[str]:
    """The tasks the message's own line names (``Task /job:jax_worker/replica:0/task:0
    heartbeat timeout``)."""
    line = log.text[start : log.line_end(start)]
    return list(dict.fromkeys(f"task {t['task']}" for t in _RE.task.finditer(line)))


def _rendezvous(log: Log, m: re.Match[str], start: int) -> Iterator[Failure]:
    """A collective whose rendezvous not every participant reached."""
    named = _RE.rendezvous_name.search(log.text, start, m.start())
    name = named["name"].strip() if named else "a collective"
    # "initialize clique for rank 6": the rank is this thread's, the same for every repeat.
    name = re.sub(r" for rank \d+$", "", name)
    yield _RENDEZVOUS_KIND.failure(
        log,
        m.start(),
        op=f"rendezvous {name}",
        advice=(_TEXT.rendezvous.format(name=name), AdviceKind.CHECK_HOSTS),
        headline_at=start,
    )


def _status_in(log: Log, start: int, end: int) -> str | None:
    """The status code the message's line gives before the match (``Original error:
    DEADLINE_EXCEEDED: Barrier ...``, ``absl::Status: UNAVAILABLE: ...``)."""
    found = _RE.status_in_line.search(log.text, start, log.line_end(end))
    return found.group(1) if found else None


# A bare status code of this family's kind (read by .xla_status where no words of this
# module's are there) gives way to a failure this module read from the same message.
_KIND = Kind(Family.DISTRIBUTED, Reason.RUNTIME, log_line)
# A rendezvous's message: its headline from the line's start, the handler's.
_RENDEZVOUS_KIND = Kind(Family.DISTRIBUTED, Reason.RUNTIME)
RECOGNISER = Recogniser(
    Family.DISTRIBUTED,
    _RE.opening,
    _distributed,
    generic_ops=frozenset({"DEADLINE_EXCEEDED", "UNAVAILABLE", "ABORTED", "CANCELLED"}),
)

"""Async ops in a trace: their transfer shown as overlap, as XProf shows it, never a roofline.

An async pair (``copy-start``/``copy-done``, ``slice-start``/``slice-done`` printed as
``async-start``/``async-done``, ``all-gather-start``/``-done``, any ``X-start``/``X-done``,
``send``/``send-done``, ``recv``/``recv-done``) issues work that runs beside the kernels: the
start's event lasts nanoseconds (the DMA or collective is issued), the done's is the wait
for it. Their bytes over their own event's time say nothing (measured on a TPU v5e: 300x to
50,000x the HBM roof), so an async op gets no bound and no roofline position
(:func:`is_async`); what is measured instead, for each pair, per execution:

* **span**: from the start event's beginning to the done event's end (the transfer is in
  flight within it);
* **hidden**: the part of the span the device spent running other ops (the union of their
  intervals: the transfer overlapped compute);
* **exposed**: the rest (the span less hidden time): the done's own wait and any time the
  device ran nothing while the transfer was in flight.

A start is paired with its done by the done's operand: from the module when the op is joined
to it, else from the op's HLO text in the trace (XLA:TPU names each op by its text:
``%copy-done.91 = ... copy-done(... %copy-start.91)``), else by name (``X-done.N`` to
``X-start.N``). Executions are paired in time order, each done with the earliest start of its
pair still open. Ops that enclose others (a loop's event around its body) cover time through
the ops inside them only, so a done's wait inside a loop is not hidden by the loop's event.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ...profile import OpEvent

__all__ = [
    "AsyncOverlap",
    "AsyncSummary",
    "ASYNC_KEYS",
    "async_overlaps",
    "is_async",
    "is_async_start",
    "is_async_done",
    "opcode_of_text",
    "operand_of_text",
]

#: The keys of an async pair in ``--json``, in order.
ASYNC_KEYS = (
    "start",
    "done",
    "opcode",
    "pairs",
    "span_s",
    "hidden_s",
    "exposed_s",
    "hidden_share",
    "bytes",
)

# Ops that issue async work without a ``-start`` suffix, and their dones.
_STARTS = frozenset({"send", "recv"})
_OPCODE = re.compile(r"(?<![\w.%\-])([a-z][a-z0-9\-]*)\(")
_OPERAND = re.compile(r"%([^\s,()]+)")


def is_async_start(opcode: str) -> bool:
    """An op that issues async work: ``X-start``, ``send``, ``recv``."""
    return opcode.endswith("-start") or opcode in _STARTS


def is_async_done(opcode: str) -> bool:
    """An op that waits for async work: ``X-done``."""
    return opcode.endswith("-done")


def is_async(opcode: str) -> bool:
    """A start, update or done of an async pair: no roofline (see the module docstring)."""
    return is_async_start(opcode) or is_async_done(opcode) or opcode.endswith("-update")


def opcode_of_text(text: str) -> str:
    """The opcode of an op's HLO text (``%x = f32[] copy-done(...)`` -> ``copy-done``)."""
    if " = " not in text:
        return ""
    found = _OPCODE.search(text.split(" = ", 1)[1])
    return found.group(1) if found else ""


def operand_of_text(text: str) -> str:
    """The first operand an op's HLO text names (``... copy-done((...) %copy-start.91)`` ->
    ``copy-start.91``), ``""`` when it names none."""
    if " = " not in text:
        return ""
    rest = text.split(" = ", 1)[1]
    found = _OPCODE.search(rest)
    if found is None:
        return ""
    operand = _OPERAND.search(rest, found.end())
    return operand.group(1) if operand else ""


@dataclass(frozen=True, slots=True)
class AsyncOverlap:
    """One async pair's executions in the trace, per step (see the module docstring).

    ``bytes`` is what one execution moves (the module's bytes of the start, through HBM on a
    TPU module; ``None`` when nothing says)."""

    start: str
    done: str
    opcode: str
    pairs: int
    span_s: float
    hidden_s: float
    bytes: float | None = None

    @property
    def exposed_s(self) -> float:
        return max(0.0, self.span_s - self.hidden_s)

    @property
    def hidden_share(self) -> float | None:
        """The share of the span other ops covered (``None`` for an empty span)."""
        return self.hidden_s / self.span_s if self.span_s > 0 else None

    def row(self) -> dict[str, Any]:
        """The ``--json`` object (:data:`ASYNC_KEYS`)."""
        return {key: getattr(self, key) for key in ASYNC_KEYS}


@dataclass(frozen=True, slots=True)
class AsyncSummary:
    """The async pairs, and over all of them per step: the time at least one transfer was in
    flight (the union of their spans: pairs overlap each other) and the part of it the device
    ran no other op (exposed: waited, or sat idle, with transfers in flight)."""

    pairs: list[AsyncOverlap]
    in_flight_s: float
    exposed_s: float


def _covered(
    busy: Sequence[tuple[float, float]], starts: Sequence[float], lo: float, hi: float
) -> float:
    """The length of ``[lo, hi]`` that the merged, sorted intervals ``busy`` cover (``starts``
    their starts)."""
    total = 0.0
    index = max(0, bisect.bisect_right(starts, lo) - 1)
    while index < len(busy) and busy[index][0] < hi:
        start, end = busy[index]
        total += max(0.0, min(end, hi) - max(start, lo))
        index += 1
    return total


def _merged(intervals: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def async_overlaps(
    ops: Sequence[OpEvent],
    own: Sequence[float],
    steps: int,
    opcode: Callable[[OpEvent], str],
    started_by: Callable[[OpEvent], str],
    nbytes: Callable[[str], float | None],
) -> AsyncSummary:
    """The async pairs of ``ops`` (one module's ops, ``own`` their self times), per step over
    ``steps``, most exposed first, and the time any transfer was in flight (and exposed).
    ``opcode`` gives an op's opcode, ``started_by`` a done's start name, ``nbytes`` a start's
    bytes per execution."""
    kinds = [opcode(op) for op in ops]
    # Time covered by ops that are not async and enclose nothing (see the module docstring).
    busy = _merged(
        (op.start_ns, op.end_ns)
        for op, kind, mine in zip(ops, kinds, own)
        if not is_async(kind) and op.duration_ns > 0 and mine >= op.duration_ns * 0.999
    )
    starts_at = [b[0] for b in busy]
    spans, start_opcode, every = _pairs(ops, kinds, started_by, busy, starts_at)
    scale = 1e-9 / max(1, steps)
    out = [
        AsyncOverlap(
            start=start,
            done=done,
            opcode=start_opcode.get(start, ""),
            pairs=int(count),
            span_s=span * scale,
            hidden_s=min(hidden, span) * scale,
            bytes=nbytes(start),
        )
        for (start, done), (count, span, hidden) in spans.items()
    ]
    out.sort(key=lambda o: (-o.exposed_s, -o.span_s, o.start))
    whole = _merged(every)
    covered = sum(_covered(busy, starts_at, lo, hi) for lo, hi in whole)
    in_flight = sum(hi - lo for lo, hi in whole)
    return AsyncSummary(out, in_flight * scale, max(0.0, in_flight - covered) * scale)


def _pairs(
    ops: Sequence[OpEvent],
    kinds: Sequence[str],
    started_by: Callable[[OpEvent], str],
    busy: list[tuple[float, float]],
    starts_at: list[float],
) -> tuple[dict[tuple[str, str], list[float]], dict[str, str], list[tuple[float, float]]]:
    """Each start matched to its done in time order: per (start, done) name, the count, the
    time in flight and the part of it other ops covered; each start's opcode; every span."""
    open_: dict[str, deque[OpEvent]] = defaultdict(deque)
    spans: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    start_opcode: dict[str, str] = {}
    every: list[tuple[float, float]] = []
    order = sorted(range(len(ops)), key=lambda i: ops[i].start_ns)
    for i in order:
        op, kind = ops[i], kinds[i]
        if is_async_start(kind):
            open_[op.name].append(op)
            start_opcode[op.name] = kind
        elif is_async_done(kind):
            start = started_by(op)
            queue = open_.get(start)
            if not queue:
                continue
            begun = queue.popleft()
            lo, hi = begun.start_ns, max(op.end_ns, begun.end_ns)
            every.append((lo, hi))
            record = spans[(start, op.name)]
            record[0] += 1
            record[1] += hi - lo
            record[2] += _covered(busy, starts_at, lo, hi)
    return spans, start_opcode, every

"""Steps of one module in a trace: how many, and each one's wall time against device busy time.

**Counting** (the rule, in this order): the steps the device's ``Steps`` line holds, else the
steps the program marked (``jax.profiler.StepTraceAnnotation``: the distinct step numbers of
the most used annotation name), else the module's executions (distinct ``run_id`` on XLA:CPU,
``XLA Modules`` events on a TPU or GPU), else one. A trace that holds other modules' ops too (a
train step and an eval step run in turn) counts only the marked steps that hold an op of the
module; when none does (host marks on another clock), the module's own executions.

**Step times**: each counted step's wall time (the mark's span; without marks, from one
execution's start to the next's) against the time the device ran ops in it (the ops' self
times, every module's: what the chip was busy with), and the idle share between them. A step
whose chip is idle most of the time is waiting for the host (input pipeline, Python dispatch,
host callbacks), and no kernel's time explains it: :data:`HOST_BOUND_IDLE`.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from ...profile import OpEvent, StepMark, Trace
from ...profile.build import STEPS_LINE

__all__ = ["StepTime", "StepCount", "count_steps", "step_times", "HOST_BOUND_IDLE", "STEP_KEYS"]

#: A step whose chip is idle more than this share of its wall time is host-bound.
HOST_BOUND_IDLE = 0.5
#: The keys of a step in ``--json``, in order.
STEP_KEYS = ("step", "wall_s", "busy_s", "idle_share")


@dataclass(frozen=True, slots=True)
class StepTime:
    """One step: its wall time, the device's busy time in it, and the idle share."""

    step: str
    wall_s: float
    busy_s: float

    @property
    def idle_share(self) -> float:
        if self.wall_s <= 0:
            return 0.0
        return min(1.0, max(0.0, 1 - self.busy_s / self.wall_s))

    def row(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in STEP_KEYS}


@dataclass(frozen=True, slots=True)
class StepCount:
    """How many steps, the rule that counted them, the module's executions, and the marks
    (empty when the steps are executions)."""

    steps: int
    rule: str
    runs: int
    marks: tuple[StepMark, ...] = ()


def _holding(marks: Sequence[StepMark], ops: Sequence[OpEvent]) -> list[StepMark]:
    """The marks within which one of ``ops`` starts."""
    starts = sorted(op.start_ns for op in ops)
    out = []
    for mark in marks:
        index = bisect.bisect_left(starts, mark.start_ns)
        if index < len(starts) and starts[index] < mark.start_ns + mark.duration_ns:
            out.append(mark)
    return out


def count_steps(trace: Trace, ops: Sequence[OpEvent], module: str) -> StepCount:
    """The steps of ``module`` (its ``ops``) in ``trace`` (see the module docstring)."""
    runs = len({op.run for op in ops if op.run})
    if not runs:
        runs = sum(1 for r in trace.module_runs if r.module == module)
    who = module or "the program"
    if trace.steps:
        name = Counter(s.name for s in trace.steps).most_common(1)[0][0]
        marks = [s for s in trace.steps if s.name == name]
        count = len({s.number for s in marks})
        where = "on the device's Steps line" if name == STEPS_LINE else f"marked '{name}'"
        if any(op.module != module for op in trace.ops) and ops:
            mine = _holding(marks, ops)
            held = len({s.number for s in mine})
            if held:
                rule = f"{held} of the trace's {count} steps {where} hold {who}'s ops"
                return StepCount(held, rule, runs, tuple(mine))
            if runs:
                rule = (
                    f"{runs} executions of {who} (the trace's {count} steps {where} hold "
                    "none of its ops)"
                )
                return StepCount(runs, rule, runs)
        if name == STEPS_LINE:
            return StepCount(count, f"{count} steps on the device's Steps line", runs, tuple(marks))
        return StepCount(count, f"{count} steps marked '{name}' in the trace", runs, tuple(marks))
    if runs:
        return StepCount(runs, f"{runs} executions of {who} (no step marker)", runs)
    return StepCount(1, "no step marker and no module execution in the trace: the whole trace", 0)


def _run_spans(trace: Trace, ops: Sequence[OpEvent], module: str) -> list[tuple[str, float, float]]:
    """Without marks: each execution from its start to the next one's (the last one only when
    it is the only one), as ``(number, start_ns, end_ns)``."""
    runs = [r for r in trace.module_runs if r.module == module]
    if runs:
        starts = [(r.start_ns, r.start_ns + r.duration_ns) for r in runs]
    else:  # XLA:CPU: the executions are the ops' run ids
        spans: dict[str, list[float]] = {}
        for op in ops:
            if op.run:
                span = spans.setdefault(op.run, [op.start_ns, op.end_ns])
                span[0], span[1] = min(span[0], op.start_ns), max(span[1], op.end_ns)
        starts = sorted((a, b) for a, b in spans.values())
    if len(starts) == 1:
        return [("0", starts[0][0], starts[0][1])]
    return [(str(i), a[0], b[0]) for i, (a, b) in enumerate(zip(starts, starts[1:]))]


def step_times(
    trace: Trace, own: Sequence[float], counted: StepCount, ops: Sequence[OpEvent], module: str
) -> list[StepTime]:
    """Each step's wall and busy time: ``own`` are the self times of ``trace.ops`` (every
    module's), the steps those ``counted`` found (see the module docstring)."""
    if counted.marks:
        spans = [(m.number, m.start_ns, m.start_ns + m.duration_ns) for m in counted.marks]
    else:
        spans = _run_spans(trace, ops, module)
    order = sorted(range(len(trace.ops)), key=lambda i: trace.ops[i].start_ns)
    starts = [trace.ops[i].start_ns for i in order]
    total = [0.0, *accumulate(own[i] for i in order)]
    out = []
    for number, start, end in spans:
        if end <= start:
            continue
        lo, hi = bisect.bisect_left(starts, start), bisect.bisect_left(starts, end)
        out.append(StepTime(number, (end - start) * 1e-9, (total[hi] - total[lo]) * 1e-9))
    return out

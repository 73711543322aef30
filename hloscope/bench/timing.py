"""The timing harness: how many runs, and what they say.

A device runs asynchronously: ``f(x)`` returns as soon as the work is queued. Every timed run
here is therefore *launch, then wait* (``jax.block_until_ready`` on the outputs), timed with
``time.perf_counter`` around both, so a sample is the latency of one call as the caller sees it.

:func:`measure` first warms up (the first call of a jitted function compiles; caches, clocks
and thread pools settle over the next few), then runs until the median is known to the asked
relative ``precision`` or the time ``budget`` is spent, whichever comes first. The precision
of a median is read off the samples themselves, with no assumption about their distribution:
for ``n`` samples in order, the ranks ``n/2 ± 0.98·√n`` bound a 95% confidence interval of the
median (the binomial rule behind the sign test), and the run stops once half that interval's
width is within ``precision`` of the median (and at least ``min_runs`` ran). Checking costs a
sort, so it happens when the sample count has grown by a tenth, not after every run.

When a run consumes its inputs (donated buffers), ``prepare`` makes fresh ones before each
run, outside the timed region.

:class:`Timing` holds the samples and their statistics: ``min``, ``median``, ``p10``, ``p90``
and the relative ``spread`` ``(p90 - p10) / median``, how noisy a single run is.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..json_fields import json_fields
from .errors import TimingError

__all__ = [
    "Timing",
    "TimingError",
    "measure",
    "median_interval",
    "relative_precision",
    "check_settings",
    "warm_up",
    "summarize",
    "block",
    "Progress",
    "DEFAULT_PRECISION",
    "DEFAULT_BUDGET",
]

DEFAULT_PRECISION = 0.02
DEFAULT_BUDGET = 10.0

#: ``progress(fraction_done, note)``: called now and then while timing.
Progress = Callable[[float, str], None]

# z for a two-sided 95% interval, halved: the rank offset is 0.98·√n.
_RANK_Z = 1.959963984540054 / 2
# How long warm-up runs at most (seconds), and its share of the budget.
_WARMUP_CAP = 0.5
_WARMUP_SHARE = 0.05
_WARMUP_MAX_RUNS = 20
_PROGRESS_EVERY = 0.1


def block(outputs: Any) -> Any:
    """Wait until ``outputs`` (any pytree of device arrays) are computed. One array waits
    through its own method (no pytree walk: this runs once per timed run)."""
    if outputs is None:
        return None
    wait = getattr(outputs, "block_until_ready", None)
    if wait is not None:
        return wait()
    import jax

    return jax.block_until_ready(outputs)


def median_interval(ordered: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """A distribution-free 95% confidence interval of the median of sorted ``ordered``."""
    n = len(ordered)
    if n == 0:
        return (math.nan, math.nan)
    offset = _RANK_Z * math.sqrt(n)
    low = max(0, int(math.floor(n / 2 - offset)))
    high = min(n - 1, int(math.ceil(n / 2 + offset)))
    return float(ordered[low]), float(ordered[high])


def relative_precision(ordered: Sequence[float] | np.ndarray) -> float:
    """Half the width of the median's interval, relative to the median (inf when unknown)."""
    if len(ordered) < 3:
        return math.inf
    low, high = median_interval(ordered)
    middle = float(np.median(ordered))
    if middle <= 0:
        return math.inf
    return (high - low) / 2 / middle


@dataclass(slots=True)
class Timing:
    """Samples of one program (seconds per run) and their statistics."""

    samples: list[float]
    warmup_runs: int = 0
    precision_target: float = DEFAULT_PRECISION
    budget_s: float = DEFAULT_BUDGET
    elapsed_s: float = 0.0
    min_s: float = math.nan
    median_s: float = math.nan
    p10_s: float = math.nan
    p90_s: float = math.nan
    mean_s: float = math.nan
    spread: float = math.nan
    precision: float = math.inf
    notes: list[str] = field(default_factory=list)

    @property
    def runs(self) -> int:
        return len(self.samples)

    @property
    def precision_reached(self) -> bool:
        return self.precision <= self.precision_target

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "runs median_s min_s p10_s p90_s spread")


def summarize(samples: Sequence[float], **settings: Any) -> Timing:
    """A :class:`Timing` of ``samples`` (``settings`` fill its other fields)."""
    timing = Timing(samples=list(samples), **settings)
    if not samples:
        return timing
    values = np.asarray(samples, dtype=np.float64)
    timing.min_s = float(values.min())
    timing.median_s = float(np.median(values))
    timing.p10_s = float(np.percentile(values, 10))
    timing.p90_s = float(np.percentile(values, 90))
    timing.mean_s = float(values.mean())
    timing.spread = (
        (timing.p90_s - timing.p10_s) / timing.median_s if timing.median_s > 0 else math.nan
    )
    timing.precision = relative_precision(np.sort(values))
    return timing


def check_settings(precision: float, budget: float, min_runs: int) -> None:
    if not 0 < precision < 1:
        raise TimingError(f"precision must be between 0 and 100%, not {precision:.4g}")
    if not budget > 0:
        raise TimingError(f"the time budget must be positive, not {budget:g} s")
    if min_runs < 1:
        raise TimingError(f"min_runs must be at least 1, not {min_runs}")


def measure(
    fn: Callable[..., Any],
    args: Sequence[Any] = (),
    *,
    prepare: Callable[[], Sequence[Any]] | None = None,
    precision: float = DEFAULT_PRECISION,
    budget: float = DEFAULT_BUDGET,
    min_runs: int = 5,
    max_runs: int = 10_000_000,
    warmup: int | None = None,
    progress: Progress | None = None,
) -> Timing:
    """Time ``fn(*args)`` (see the module docstring) and return the :class:`Timing`.

    ``prepare`` (when given) makes the arguments of each run instead of ``args``; it runs
    outside the timed region. ``warmup`` fixes the number of warm-up runs (default: until
    5% of the budget, at most half a second, has passed, 2 runs at least). ``budget`` is in
    seconds of timed runs (warm-up and ``prepare`` not counted).
    """
    check_settings(precision, budget, min_runs)
    done = warm_up(fn, args, prepare, budget, warmup)
    samples, spent = _timed_runs(fn, args, prepare, precision, budget, min_runs, max_runs, progress)
    timing = summarize(
        samples, warmup_runs=done, precision_target=precision, budget_s=budget, elapsed_s=spent
    )
    if not timing.precision_reached:
        timing.notes.append(
            f"precision {timing.precision:.1%} (asked {precision:.1%}): the budget of "
            f"{budget:g} s ran out after {timing.runs} runs"
        )
    if progress is not None:
        progress(1.0, _note(timing.runs, timing.precision))
    return timing


def _timed_runs(
    fn: Callable[..., Any],
    args: Sequence[Any],
    prepare: Callable[[], Sequence[Any]] | None,
    precision: float,
    budget: float,
    min_runs: int,
    max_runs: int,
    progress: Progress | None,
) -> tuple[list[float], float]:
    """The timed runs' seconds, until ``precision`` is reached or ``budget`` is spent, and
    the seconds spent."""
    clock = time.perf_counter
    samples: list[float] = []
    append = samples.append
    spent = 0.0
    next_check = min_runs
    last_report = clock()
    reached = math.inf
    while len(samples) < max_runs:
        # Fresh inputs are in place before the clock starts: a transfer to the device is
        # asynchronous, and a call that waited for it would be timed with it.
        call_args = block(prepare()) if prepare is not None else args
        start = clock()
        block(fn(*call_args))
        took = clock() - start
        append(took)
        spent += took
        count = len(samples)
        if spent >= budget:
            break
        if count >= next_check:
            reached = relative_precision(sorted(samples))
            if reached <= precision:
                break
            next_check = count + max(1, count // 10)
        if progress is not None and start - last_report > _PROGRESS_EVERY:
            last_report = start
            progress(min(0.99, spent / budget), _note(count, reached))
    return samples, spent


def _note(count: int, reached: float) -> str:
    known = "" if math.isinf(reached) else f", ±{reached:.1%}"
    return f"{count} runs{known}"


def warm_up(
    fn: Callable[..., Any],
    args: Sequence[Any],
    prepare: Callable[[], Sequence[Any]] | None,
    budget: float,
    runs: int | None,
) -> int:
    """Run ``fn`` untimed: ``runs`` times, or until a short settling time has passed."""
    clock = time.perf_counter
    limit = min(_WARMUP_CAP, budget * _WARMUP_SHARE)
    done = 0
    started = 0.0  # set after the first run, read only from the second on
    while True:
        if runs is not None and done >= runs:
            return done
        call_args = prepare() if prepare is not None else args
        block(fn(*call_args))
        done += 1
        if done == 1:
            started = clock()  # the first run may compile: settle from after it
            continue
        if runs is None and (done >= _WARMUP_MAX_RUNS or clock() - started >= limit):
            return done

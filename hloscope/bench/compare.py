"""Is B faster than A? Interleaved runs, a bootstrap interval, and a verdict in plain words.

Two programs timed one after the other see different machines: the other processes, the
clock, the temperature change in between. :func:`interleave` times them in alternation (each
round runs both, in a random order, so neither is always first after the other's cache
traffic) until both medians are known to the asked precision or the budget is spent.

:func:`compare_samples` then takes the ratio of the medians, ``B / A`` in time, and a 95%
percentile-bootstrap confidence interval of it: resample each side's samples with replacement,
take the ratio of the resampled medians, 2,000 times; the 2.5th and 97.5th percentiles bound
the ratio. The difference is called **significant** when that interval excludes 1 *and* the
ratio differs from 1 by at least ``min_effect`` (by default the precision asked of the
measurement: a difference smaller than the harness was asked to resolve is not one it can
vouch for). The verdict says it the way a person would: ``B is 1.31x faster (95% CI
1.27-1.35)``, ``B is 4.02x slower (...)``, or ``no significant difference (...)``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .compile import Workload
from .timing import (
    DEFAULT_BUDGET,
    DEFAULT_PRECISION,
    Progress,
    Timing,
    block,
    check_settings,
    relative_precision,
    summarize,
    warm_up,
)

__all__ = ["Comparison", "interleave", "compare_samples", "BOOTSTRAP_RESAMPLES"]

BOOTSTRAP_RESAMPLES = 2000
_CONFIDENCE = 0.95
# Resampled values held at once by the bootstrap (memory stays bounded for long runs).
_BOOTSTRAP_CHUNK = 4_000_000


@dataclass(frozen=True, slots=True)
class Comparison:
    """A's and B's timings, the time ratio B/A, its interval and the verdict."""

    a: Timing
    b: Timing
    ratio: float
    ci_low: float
    ci_high: float
    significant: bool
    min_effect: float
    verdict: str

    @property
    def b_slower(self) -> bool:
        return self.significant and self.ratio > 1

    @property
    def slower_percent(self) -> float:
        """How much slower B is than A, in percent (negative: faster)."""
        return (self.ratio - 1.0) * 100.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "ratio": self.ratio,
            "ci95": [self.ci_low, self.ci_high],
            "significant": self.significant,
            "min_effect": self.min_effect,
            "verdict": self.verdict,
        }


def _bootstrap_ratio(a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    per_chunk = max(1, _BOOTSTRAP_CHUNK // max(len(a), len(b)))
    ratios: list[np.ndarray] = []
    left = resamples
    while left > 0:
        count = min(left, per_chunk)
        med_a = np.median(a[rng.integers(0, len(a), size=(count, len(a)))], axis=1)
        med_b = np.median(b[rng.integers(0, len(b), size=(count, len(b)))], axis=1)
        ratios.append(med_b / med_a)
        left -= count
    return np.concatenate(ratios)


def _verdict(ratio: float, low: float, high: float, significant: bool) -> str:
    if not significant:
        return f"no significant difference (B/A time {ratio:.3f}, 95% CI {low:.3f}-{high:.3f})"
    if ratio < 1:
        return f"B is {1 / ratio:.2f}x faster, 95% CI {1 / high:.2f}-{1 / low:.2f}"
    return f"B is {ratio:.2f}x slower, 95% CI {low:.2f}-{high:.2f}"


def compare_samples(
    a: Timing,
    b: Timing,
    *,
    min_effect: float | None = None,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
) -> Comparison:
    """The :class:`Comparison` of two timings (see the module docstring)."""
    if not a.samples or not b.samples:
        raise ValueError("both timings need samples")
    effect = a.precision_target if min_effect is None else min_effect
    xa = np.asarray(a.samples, dtype=np.float64)
    xb = np.asarray(b.samples, dtype=np.float64)
    ratio = float(np.median(xb) / np.median(xa))
    ratios = _bootstrap_ratio(xa, xb, resamples, seed)
    tail = (1 - _CONFIDENCE) / 2 * 100
    low, high = (float(v) for v in np.percentile(ratios, [tail, 100 - tail]))
    significant = (low > 1 or high < 1) and abs(ratio - 1) >= effect
    return Comparison(
        a, b, ratio, low, high, significant, effect, _verdict(ratio, low, high, significant)
    )


def _run_once(work: Workload) -> float:
    args = work.prepare() if work.prepare is not None else work.args
    start = time.perf_counter()
    block(work.fn(*args))
    return time.perf_counter() - start


def interleave(
    a: Workload,
    b: Workload,
    *,
    precision: float = DEFAULT_PRECISION,
    budget: float = DEFAULT_BUDGET,
    min_runs: int = 5,
    seed: int = 0,
    progress: Progress | None = None,
) -> tuple[Timing, Timing]:
    """Time ``a`` and ``b`` in alternation (see the module docstring); ``budget`` covers the
    timed runs of both."""
    check_settings(precision, budget, min_runs)
    warm_a = warm_up(a.fn, a.args, a.prepare, budget / 2, None)
    warm_b = warm_up(b.fn, b.args, b.prepare, budget / 2, None)
    rng = np.random.default_rng(seed)
    samples: tuple[list[float], list[float]] = ([], [])
    spent = 0.0
    next_check = min_runs
    last_report = time.perf_counter()
    while spent < budget:
        order = (0, 1) if rng.random() < 0.5 else (1, 0)
        for side in order:
            took = _run_once(a if side == 0 else b)
            samples[side].append(took)
            spent += took
        count = len(samples[0])
        if count >= next_check:
            worst = max(relative_precision(sorted(s)) for s in samples)
            if worst <= precision:
                break
            next_check = count + max(1, count // 10)
        now = time.perf_counter()
        if progress is not None and now - last_report > 0.1:
            last_report = now
            progress(min(0.99, spent / budget), f"{count} rounds")
    if progress is not None:
        progress(1.0, f"{len(samples[0])} rounds")
    timings = []
    for side, warm in ((0, warm_a), (1, warm_b)):
        timing = summarize(
            samples[side],
            warmup_runs=warm,
            precision_target=precision,
            budget_s=budget,
            elapsed_s=math.fsum(samples[side]),
        )
        timings.append(timing)
    return timings[0], timings[1]

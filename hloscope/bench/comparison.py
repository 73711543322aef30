"""Is B faster than A? Interleaved runs, a bootstrap interval, and a verdict in plain words.

Two programs timed one after the other see different machines: the other processes, the
clock, the temperature change in between. :func:`interleave` times them in alternation (each
round runs both, in a random order, so neither is always first after the other's cache
traffic) until both medians are known to the asked precision or the budget is spent, and
for at least eight rounds even past the budget (fewer say too little to compare; see below).

:func:`compare_samples` then takes the ratio of the medians, ``B / A`` in time, and a 95%
confidence interval of it from a **block bootstrap over rounds**: rounds are resampled in
blocks of consecutive rounds (about the cube root of their number long), A's and B's runs of a
round together, and the ratio of the resampled medians taken, 2,000 times; the 2.5th and
97.5th percentiles bound the ratio. Resampling rounds together keeps what the two sides of a
round share (the machine's state at that moment), and blocks keep the slower swings of a
shared machine, which resampling single runs would average away into a falsely narrow
interval.

A bootstrap of a median over a dozen rounds is still too narrow (its resampled medians take
only a few distinct values), and a short budget or a slow program gives no more. So the
interval reported is the wider of that one and a **distribution-free** one: each round's own
ratio ``B / A`` (the pair shares the machine's state), and the order statistics around their
median that a sign test gives (for ten rounds, the 2nd smallest and the 2nd largest ratio),
which cover the median with at least 95% whatever the noise's shape. With hundreds of rounds
the two agree; with a dozen on a busy machine the second keeps A against A from being called
a difference.

That interval says how well the ratio is known, not how big a difference the machine can
tell from noise: two copies of one memory-bound program, timed together, can differ by a few
percent for reasons that are no property of either (page faults, the state of the allocator,
the other processes). So each program is also compared **with itself**: its runs split into
halves, the first rounds against the last and alternating blocks against each other, and the
largest difference any such A/A split shows on either side is the **noise floor** of this
measurement (never below ``min_effect``, by default the precision asked of it). The difference
is called **significant** only when the whole interval lies beyond the noise floor: B at
least that much slower, or that much faster, with 95% confidence. With fewer than eight runs
a side (a short budget, slow programs) a bootstrap interval is too optimistic, so every run
of one side must also be slower than every run of the other, which chance does with
probability ``2 / C(na + nb, na)``, at most 5% (four runs a side at least). The verdict
says it the way a person would: ``B is 1.31x faster, 95% CI 1.27-1.35``,
``B is 4.02x slower (...)``, or ``no significant difference (...; noise floor ±3.1%)``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..json_fields import json_fields
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

__all__ = [
    "Comparison",
    "NoiseFloor",
    "interleave",
    "compare_samples",
    "halves_difference",
    "BOOTSTRAP_RESAMPLES",
]

BOOTSTRAP_RESAMPLES = 2000
_CONFIDENCE = 0.95
# Resampled values held at once by the bootstrap (memory stays bounded for long runs).
_BOOTSTRAP_CHUNK = 4_000_000
# Below this many runs a side, a bootstrap interval is too optimistic to rest a claim on: the
# runs must also be completely apart (every B slower than every A, or faster), which chance
# alone does with probability 2 / C(na + nb, na), at most 1 - _CONFIDENCE.
_FEW_RUNS = 8


@dataclass(frozen=True, slots=True)
class NoiseFloor:
    """The smallest difference a comparison vouches for: the precision asked of it, and the
    largest relative difference between halves of A's own runs and of B's own runs."""

    precision: float
    a_halves: float
    b_halves: float

    @property
    def effect(self) -> float:
        return max(self.precision, self.a_halves, self.b_halves)

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "effect precision a_halves b_halves")


@dataclass(frozen=True, slots=True)
class Comparison:
    """A's and B's timings, the time ratio B/A, its interval and the verdict."""

    a: Timing
    b: Timing
    ratio: float
    ci_low: float
    ci_high: float
    significant: bool
    min_effect: float  # the noise floor's effect: what a difference had to exceed
    verdict: str
    noise: NoiseFloor | None = None

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
            "noise_floor": self.noise.to_dict() if self.noise is not None else None,
            "verdict": self.verdict,
        }


def _block_length(rounds: int) -> int:
    return max(1, round(rounds ** (1 / 3)))


def _block_indices(rng: np.random.Generator, count: int, rounds: int, length: int) -> np.ndarray:
    """``count`` resamples of ``rounds`` round indices, drawn as blocks of ``length``."""
    blocks = -(-rounds // length)
    starts = rng.integers(0, rounds - length + 1, size=(count, blocks))
    return (starts[:, :, None] + np.arange(length)).reshape(count, -1)[:, :rounds]


def _bootstrap_ratio(a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Resampled ratios of medians: rounds in blocks when A and B are paired by round (the
    same number of runs, from :func:`interleave`), else each side's runs on their own."""
    rng = np.random.default_rng(seed)
    paired = len(a) == len(b)
    length = _block_length(len(a)) if paired else 1
    per_chunk = max(1, _BOOTSTRAP_CHUNK // max(len(a), len(b)))
    ratios: list[np.ndarray] = []
    left = resamples
    while left > 0:
        count = min(left, per_chunk)
        if paired:
            rows = _block_indices(rng, count, len(a), length)
            med_a, med_b = np.median(a[rows], axis=1), np.median(b[rows], axis=1)
        else:
            med_a = np.median(a[rng.integers(0, len(a), size=(count, len(a)))], axis=1)
            med_b = np.median(b[rng.integers(0, len(b), size=(count, len(b)))], axis=1)
        ratios.append(med_b / med_a)
        left -= count
    return np.concatenate(ratios)


def halves_difference(samples: np.ndarray, length: int) -> float:
    """The largest relative difference between the medians of two halves of one program's
    runs (in time order): first half against second, and alternating blocks of ``length``
    runs against each other. 0 with fewer than four runs to split."""
    if len(samples) < 4:
        return 0.0
    middle = len(samples) // 2
    block = np.arange(len(samples)) // max(1, min(length, middle // 2 or 1))
    splits = [(samples[:middle], samples[middle:])]
    if np.any(block % 2 == 1):
        splits.append((samples[block % 2 == 0], samples[block % 2 == 1]))
    worst = 0.0
    for first, second in splits:
        low, high = sorted((float(np.median(first)), float(np.median(second))))
        if low > 0:
            worst = max(worst, high / low - 1.0)
    return worst


def _rounds_interval(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """A distribution-free 95% interval of the median of the rounds' own ratios ``b / a``:
    the order statistics a sign test puts around the median (the interval covers it with at
    least 95% whatever the noise's shape, as long as the rounds are independent). Needs six
    rounds at least; fewer give no such interval, and ``(0, inf)``."""
    ratios = np.sort(b / a)
    rounds = len(ratios)
    tail = (1 - _CONFIDENCE) / 2
    # The k-th smallest and k-th largest ratio bound the median with P(Bin(n, 1/2) < k) <= tail.
    k, below = 0, 0.0
    while k < rounds and below + math.comb(rounds, k) / 2**rounds <= tail:
        below += math.comb(rounds, k) / 2**rounds
        k += 1
    if k == 0:
        return 0.0, math.inf
    return float(ratios[k - 1]), float(ratios[rounds - k])


def _apart_if_few(a: np.ndarray, b: np.ndarray) -> bool:
    """True with many runs; with few, only when every run of one side is slower than every
    run of the other and chance would do that rarely enough (an exact rank test)."""
    if min(len(a), len(b)) >= _FEW_RUNS:
        return True
    apart = a.max() < b.min() or b.max() < a.min()
    return bool(apart) and 2 / math.comb(len(a) + len(b), len(a)) <= 1 - _CONFIDENCE


def _verdict(
    ratio: float, low: float, high: float, significant: bool, floor: float, runs: int
) -> str:
    if not significant:
        few = f"; {runs} runs a side" if runs < _FEW_RUNS else ""
        return (
            f"no significant difference (B/A time {ratio:.3f}, 95% CI {low:.3f}-{high:.3f}; "
            f"noise floor ±{floor:.1%}{few})"
        )
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
    xa = np.asarray(a.samples, dtype=np.float64)
    xb = np.asarray(b.samples, dtype=np.float64)
    length = _block_length(min(len(xa), len(xb)))
    noise = NoiseFloor(
        a.precision_target if min_effect is None else min_effect,
        halves_difference(xa, length),
        halves_difference(xb, length),
    )
    ratio = float(np.median(xb) / np.median(xa))
    ratios = _bootstrap_ratio(xa, xb, resamples, seed)
    tail = (1 - _CONFIDENCE) / 2 * 100
    low, high = (float(v) for v in np.percentile(ratios, [tail, 100 - tail]))
    if len(xa) == len(xb) >= _FEW_RUNS:
        # Paired rounds: widen to the rounds' own interval where it is wider (see module doc).
        rounds_low, rounds_high = _rounds_interval(xa, xb)
        low, high = min(low, rounds_low), max(high, rounds_high)
    floor = noise.effect
    significant = (low > 1 + floor or high < 1 / (1 + floor)) and _apart_if_few(xa, xb)
    return Comparison(
        a,
        b,
        ratio,
        low,
        high,
        significant,
        floor,
        _verdict(ratio, low, high, significant, floor, min(len(xa), len(xb))),
        noise,
    )


def _run_once(work: Workload) -> float:
    # Fresh inputs are on the device before the clock starts (their transfer is asynchronous).
    args = block(work.prepare()) if work.prepare is not None else work.args
    start = time.perf_counter()
    block(work.fn(*args))
    return time.perf_counter() - start


def interleave(
    a: Workload,
    b: Workload,
    *,
    precision: float = DEFAULT_PRECISION,
    budget: float = DEFAULT_BUDGET,
    min_runs: int = _FEW_RUNS,
    seed: int = 0,
    progress: Progress | None = None,
) -> tuple[Timing, Timing]:
    """Time ``a`` and ``b`` in alternation (see the module docstring); ``budget`` covers the
    timed runs of both, and ``min_runs`` rounds run even past it."""
    check_settings(precision, budget, min_runs)
    warm_a = warm_up(a.fn, a.args, a.prepare, budget / 2, None)
    warm_b = warm_up(b.fn, b.args, b.prepare, budget / 2, None)
    rng = np.random.default_rng(seed)
    samples: tuple[list[float], list[float]] = ([], [])
    spent = 0.0
    next_check = min_runs
    last_report = time.perf_counter()
    while spent < budget or len(samples[0]) < min_runs:
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

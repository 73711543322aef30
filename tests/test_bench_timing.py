"""The timing harness against a plain timeit loop, its statistics, and what it runs."""

from __future__ import annotations

import statistics
import timeit

import numpy as np
import pytest

from tests.conftest import SAMPLES
from tests.frameworks_needed import needs_framework

jax = needs_framework("jax")
import jax.numpy as jnp  # noqa: E402

from hloscope.bench.api import bench  # noqa: E402
from hloscope.bench.program import load_script_function, program_from_callable  # noqa: E402
from hloscope.bench.timing import (  # noqa: E402
    TimingError,
    measure,
    median_interval,
    summarize,
)


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    """The CPU calibration goes to a cache of this test session, not the user's."""
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path_factory.getbasetemp() / "hloscope-cache"))


def _work(x, w):
    for _ in range(4):
        x = jnp.tanh(x @ w)
    return x


def timeit_per_call(fn, args, repeats: int = 9) -> list[float]:
    """Seconds per call of ``fn(*args).block_until_ready()``, one value per timeit repeat."""
    jax.block_until_ready(fn(*args))
    number = max(
        1, int(0.02 / max(1e-6, timeit.timeit(lambda: fn(*args).block_until_ready(), number=1)))
    )
    loop = lambda: fn(*args).block_until_ready()  # noqa: E731
    return [t / number for t in timeit.repeat(loop, number=number, repeat=repeats)]


def agrees(result, plain: list[float]) -> bool:
    """The plain loop's median lies within the harness's measured spread around its median."""
    t = result.timing
    margin = max(t.p90_s - t.p10_s, 0.0)
    return t.p10_s - margin <= statistics.median(plain) <= t.p90_s + margin


def test_reported_time_agrees_with_a_plain_timeit_loop():
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((192, 192), dtype=np.float32))
    w = jnp.asarray(rng.standard_normal((192, 192), dtype=np.float32) / 14)
    jitted = jax.jit(_work)
    before = timeit_per_call(jitted, (x, w))
    result = bench(jitted, x, w, budget=1.0, precision=0.02)
    after = timeit_per_call(jitted, (x, w))
    assert result.runs >= 5
    assert result.timing.min_s <= result.timing.p10_s <= result.median_s <= result.timing.p90_s
    # Timed on either side of the harness, so a change of load shows up on one side only.
    assert agrees(result, before) or agrees(result, after), (result.timing, before, after)


def test_script_function_uses_the_example_arguments_and_agrees_with_timeit():
    script = str(SAMPLES / "fusion_refactor.py")
    fn, args, kwargs = load_script_function(script, "fused")
    assert not kwargs
    result = bench(f"{script}:fused", budget=1.0)
    assert result.module == "jit_fused"
    # The call the harness times: the script's own jitted function, its arguments put on the
    # device once.
    jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
    placed = jax.device_put(args, jax.devices()[0])
    # A 20-100 us kernel: on a shared 2-core machine its per-call time switches between modes
    # from one second to the next (seen: 22 against 39 us, 67 against 98 us, in one process;
    # on CI once 2.4x within one test), so the harness and a timeit loop are set side by side
    # up to three times and must agree within a factor of two once. A harness that timed
    # something else (other arguments, the compile, a copy per call) is off on every try; the
    # 192x192 test above holds the harness to its own spread.
    ratios = []
    for _ in range(3):
        plain = timeit_per_call(jitted, placed)
        ratios.append(result.median_s / statistics.median(plain))
        if 0.5 <= ratios[-1] <= 2.0:
            break
        result = bench(f"{script}:fused", budget=1.0)
    assert 0.5 <= ratios[-1] <= 2.0, (ratios, result.timing)
    # FLOPs come from the cost model of what XLA compiled: a 32x128 @ 128x128 matmul at least.
    assert result.flops >= 2 * 32 * 128 * 128
    assert result.roofline.flops_per_s == pytest.approx(result.flops / result.median_s)


def test_statistics_are_those_of_the_samples():
    rng = np.random.default_rng(3)
    samples = list(rng.lognormal(mean=-7, sigma=0.3, size=501))
    t = summarize(samples, precision_target=0.02)
    assert t.median_s == pytest.approx(float(np.median(samples)))
    assert t.p10_s == pytest.approx(float(np.percentile(samples, 10)))
    assert t.p90_s == pytest.approx(float(np.percentile(samples, 90)))
    assert t.min_s == min(samples)
    assert t.spread == pytest.approx((t.p90_s - t.p10_s) / t.median_s)
    low, high = median_interval(sorted(samples))
    assert low <= t.median_s <= high
    # More samples, a narrower interval of the median.
    wide = median_interval(sorted(samples[:51]))
    assert (high - low) < (wide[1] - wide[0])


def test_the_harness_stops_at_the_precision_or_the_budget():
    steady = measure(lambda: np.zeros(4), precision=0.5, budget=5.0, min_runs=5)
    assert steady.precision_reached and steady.runs >= 5
    assert steady.runs < 1000  # stopped for precision, long before the budget
    rng = np.random.default_rng(0)
    uneven = lambda: np.sort(rng.random(int(rng.integers(1_000, 50_000))))  # noqa: E731
    tight = measure(uneven, precision=1e-9, budget=0.05, min_runs=5)
    assert not tight.precision_reached
    assert tight.elapsed_s >= 0.05 and any("budget" in note for note in tight.notes)


def test_bad_settings_are_refused():
    with pytest.raises(TimingError):
        measure(lambda: None, precision=0.0)
    with pytest.raises(TimingError):
        measure(lambda: None, budget=0)


def test_donated_arguments_get_fresh_copies_every_run():
    step = jax.jit(lambda x: x * 2.0 + 1.0, donate_argnums=0)
    x = jnp.ones((64, 64))
    program = program_from_callable(step, (x,))
    assert program.work.prepare is not None  # the first call consumed its input
    result = bench(program, budget=0.3)
    assert result.runs >= 5


def test_shape_dtype_structs_become_random_inputs():
    spec = jax.ShapeDtypeStruct((128,), jnp.int32)
    result = bench(lambda i: (i * 3).sum(), spec, budget=0.2)
    assert result.runs >= 1 and result.module.startswith("jit_")


def test_progress_is_reported_while_timing():
    seen = []
    bench(jax.jit(lambda v: v + 1), jnp.ones(8), budget=0.3, progress=lambda *a: seen.append(a))
    stages = {stage for stage, _, _ in seen}
    assert "program" in stages
    assert seen[-1][1] == 1.0 or any(f == 1.0 for s, f, _ in seen if s == "program")


class _InFlight:
    """An input still on its way to the device (as ``jax.device_put`` leaves it): the first
    wait takes ``seconds``, later ones none, and a call that reads it waits first."""

    def __init__(self, seconds: float) -> None:
        self.seconds, self.arrived = seconds, False

    def block_until_ready(self) -> _InFlight:
        if not self.arrived:
            import time

            time.sleep(self.seconds)
            self.arrived = True
        return self


def test_fresh_inputs_are_in_place_before_the_clock_starts():
    transfer = 0.02

    def call(x: _InFlight) -> None:
        x.block_until_ready()  # the computation cannot start before its input is there

    # Each run waits `transfer` untimed: the runs are capped at a hundred (a call this short
    # would otherwise run until its median is known to 2%, a thousand runs and more, 30 s of
    # waits); a wait inside the clock would put every one of them over transfer / 4.
    prepare = lambda: (_InFlight(transfer),)  # noqa: E731
    timing = measure(call, prepare=prepare, budget=0.5, min_runs=5, max_runs=100)
    assert timing.median_s < transfer / 4

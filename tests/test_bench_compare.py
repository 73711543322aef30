"""``--vs``: interleaved runs, the bootstrap interval, and the verdict."""

from __future__ import annotations

import numpy as np
import pytest

from hloscope.bench.comparison import compare_samples, halves_difference
from hloscope.bench.timing import summarize
from tests.frameworks_needed import needs_framework


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path_factory.getbasetemp() / "hloscope-cache"))


def elementwise():
    jax = needs_framework("jax")
    import jax.numpy as jnp

    return jax, jnp, jax.jit(lambda x: jnp.sin(x) * jnp.cos(x) + jnp.tanh(x) * jnp.exp(-x))


def test_four_times_the_data_is_found_about_four_times_slower():
    from hloscope.bench import compare

    jax, jnp, f = elementwise()
    small, large = jnp.ones(1 << 19), jnp.ones(4 << 19)
    result = compare((f, small), (f, large), budget=2.0, precision=0.03)
    c = result.comparison
    assert c.significant and c.ratio > 1 and "slower" in result.verdict
    # About 4x: the small side's 2 MiB stay in the caches more than the large side's 8 MiB,
    # and a loaded 2-core machine adds its own spread, so up to 6x is still "about four".
    assert 2.8 < c.ratio < 6.0, result.verdict
    assert c.ci_low <= c.ratio <= c.ci_high
    # The other way round: B is the faster one.
    flipped = compare((f, large), (f, small), budget=2.0, precision=0.03)
    assert flipped.comparison.ratio < 1 and "faster" in flipped.verdict


def test_a_program_against_itself_is_no_significant_difference():
    from hloscope.bench import compare

    jax, jnp, f = elementwise()
    x = jnp.ones(1 << 18)
    # On a shared 2-core CI machine, with the other test worker busy, two halves of one run
    # have differed by 3% (CI 1.01-1.06): the test asks for the precision such a machine can
    # vouch for, so only a difference of 5% or more may be called one.
    result = compare((f, x), (f, x), budget=1.5, precision=0.05)
    assert not result.comparison.significant
    assert result.verdict.startswith("no significant difference")
    assert set(result.to_dict()) == {"a", "b", "comparison"}
    frame = result.to_dataframe()
    assert (
        list(frame.index) == ["A", "B"] and frame.attrs["comparison"]["verdict"] == result.verdict
    )


def test_the_ratio_and_interval_come_from_the_samples():
    rng = np.random.default_rng(7)
    a = summarize(list(rng.normal(1.0, 0.05, 400)), precision_target=0.02)
    b = summarize(list(rng.normal(1.3, 0.05, 400)), precision_target=0.02)
    c = compare_samples(a, b)
    assert c.ratio == pytest.approx(np.median(b.samples) / np.median(a.samples))
    assert c.ci_low < c.ratio < c.ci_high and c.significant
    assert c.verdict.startswith(f"B is {c.ratio:.2f}x slower")
    back = compare_samples(b, a)
    assert back.verdict.startswith(f"B is {1 / back.ratio:.2f}x faster")
    # A difference smaller than the precision asked for is not called one.
    close = summarize(list(rng.normal(1.005, 0.002, 400)), precision_target=0.02)
    base = summarize(list(rng.normal(1.0, 0.002, 400)), precision_target=0.02)
    assert not compare_samples(base, close).significant


def _drifting(rng, n, level, drift):
    """``n`` runs of a program whose time is ``level``, on a machine that slows down by
    ``drift`` over the session, with 0.3% run-to-run noise."""
    return list(level * np.linspace(1.0, 1.0 + drift, n) * rng.normal(1.0, 0.003, n))


def test_a_difference_within_the_programs_own_drift_is_not_claimed():
    rng = np.random.default_rng(3)
    # Each program moves 10% between the first and the last of its runs; B/A is a steady 3%:
    # the interval of the ratio alone is narrow and excludes 1, but an A/A split of either
    # program's own runs differs by more than 3%, so the machine cannot vouch for it.
    a = summarize(_drifting(rng, 200, 1.0, 0.10), precision_target=0.02)
    b = summarize(_drifting(rng, 200, 1.03, 0.10), precision_target=0.02)
    c = compare_samples(a, b)
    assert c.ci_low > 1.0  # the ratio is known well...
    assert not c.significant and c.verdict.startswith("no significant difference")
    first, second = np.median(a.samples[:100]), np.median(a.samples[100:])
    assert c.noise.a_halves >= second / first - 1 > 0.03  # ...the noise floor is larger
    assert c.min_effect == c.noise.effect and "noise floor ±" in c.verdict
    assert c.to_dict()["noise_floor"]["a_halves"] == c.noise.a_halves
    # A difference well beyond the drift is still found, in the right direction.
    slower = summarize(_drifting(rng, 200, 1.5, 0.10), precision_target=0.02)
    assert compare_samples(a, slower).b_slower
    faster = compare_samples(slower, a)
    assert faster.significant and faster.ratio < 1 and "faster" in faster.verdict


def test_halves_of_a_steady_program_agree():
    rng = np.random.default_rng(5)
    steady = np.asarray(rng.normal(1.0, 0.003, 300))
    assert halves_difference(steady, 7) < 0.005
    # First half fast, second half slow: the time split sees it.
    stepped = np.concatenate([np.full(50, 1.0), np.full(50, 1.2)])
    assert halves_difference(stepped, 5) == pytest.approx(0.2)
    # Alternating blocks fast and slow: the block split sees it.
    blocks = np.tile(np.concatenate([np.full(5, 1.0), np.full(5, 1.1)]), 10)
    assert halves_difference(blocks, 5) == pytest.approx(0.1)
    assert halves_difference(np.ones(3), 1) == 0.0


def test_paired_rounds_cancel_the_drift_both_programs_share():
    rng = np.random.default_rng(11)
    # The machine's speed wanders by ±20% from round to round, the same for A and B in a
    # round; B is 1.3x A. Resampled by rounds, the ratio's interval is tight around 1.3.
    machine = np.exp(rng.normal(0.0, 0.2, 300))
    a = summarize(list(machine * rng.normal(1.0, 0.01, 300)), precision_target=0.02)
    b = summarize(list(1.3 * machine * rng.normal(1.0, 0.01, 300)), precision_target=0.02)
    c = compare_samples(a, b)
    assert c.ci_low < 1.3 < c.ci_high and c.ci_high - c.ci_low < 0.1
    assert c.b_slower


def _memory_bound(jnp, scale):
    """An elementwise add over two arrays of ``scale`` times the last-level cache each."""
    from hloscope.bench.peaks import last_level_cache

    n = int(scale * last_level_cache().bytes) // 4
    return jnp.ones(n, jnp.float32), jnp.full(n, 2.0, jnp.float32)


def test_a_memory_bound_program_against_itself_is_never_a_difference():
    from hloscope.bench import compare

    jax = needs_framework("jax")
    import jax.numpy as jnp

    add = jax.jit(lambda x, y: x + y)
    x, y = _memory_bound(jnp, 1.0)
    # A and B are loaded (compiled, given inputs) separately, as `--vs A A` does.
    # At least eight rounds run, whatever the budget.
    verdicts = [compare((add, x, y), (add, x, y), budget=0.5, seed=i).verdict for i in range(4)]
    assert all(v.startswith("no significant difference") for v in verdicts), verdicts
    # Four times the work is found, either way round.
    x4, y4 = _memory_bound(jnp, 4.0)
    slower = compare((add, x, y), (add, x4, y4), budget=1.0)
    assert slower.comparison.b_slower and "slower" in slower.verdict, slower.verdict
    faster = compare((add, x4, y4), (add, x, y), budget=1.0)
    c = faster.comparison
    assert c.significant and c.ratio < 1 and "faster" in faster.verdict, faster.verdict


def test_with_few_runs_only_runs_completely_apart_are_a_difference():
    def timing(values):
        return summarize(values, precision_target=0.02)

    # Three rounds, every B twice every A: chance puts 3 and 3 runs apart one time in ten,
    # too often to call it.
    few = compare_samples(timing([1.0, 1.01, 0.99]), timing([2.0, 2.02, 1.98]))
    assert not few.significant and "3 runs a side" in few.verdict
    # Four rounds apart: one time in 35 by chance, a difference.
    four = compare_samples(timing([1.0, 1.01, 0.99, 1.0]), timing([2.0, 2.02, 1.98, 2.01]))
    assert four.b_slower and four.verdict.startswith("B is 2.0")
    # Six rounds, B's median 1.29x A's with a narrow interval, but one A run slower than one
    # B run: with so few, the interval alone is not enough.
    a = [1.0, 1.01, 0.99, 1.0, 1.02, 1.25]
    b = [1.3, 1.31, 1.29, 1.3, 1.32, 1.2]
    overlap = compare_samples(timing(a), timing(b))
    assert overlap.ci_low > 1 + overlap.min_effect  # the interval would have claimed it
    assert not overlap.significant and "6 runs a side" in overlap.verdict


def _bursty_runs(rng: np.random.Generator, rounds: int) -> np.ndarray:
    """One program's run times on a busy machine: 5% jitter, and one run in four hit by the
    other worker (1.3x to 2x slower), independently of the other program's runs."""
    jitter = np.exp(rng.normal(0.0, 0.05, rounds))
    return jitter * np.where(rng.random(rounds) < 0.25, rng.uniform(1.3, 2.0, rounds), 1.0)


def test_a_dozen_rounds_on_a_busy_machine_do_not_make_a_against_a_a_difference():
    # The bootstrap's interval alone called 1.5% of such A/A comparisons at eight rounds a
    # difference (and CI once saw "B is 1.19x slower" of a program against itself).
    rng = np.random.default_rng(2026)
    called = 0
    for trial in range(600):
        rounds = 8 + trial % 5
        a = summarize(list(_bursty_runs(rng, rounds)), precision_target=0.02)
        b = summarize(list(_bursty_runs(rng, rounds)), precision_target=0.02)
        called += compare_samples(a, b, seed=trial).significant
    assert called == 0


def test_the_rounds_interval_covers_the_median_ratio_whatever_the_noise():
    from hloscope.bench.comparison import _rounds_interval

    rng = np.random.default_rng(7)
    for rounds in (8, 10, 13, 40):
        covered = 0
        for _ in range(400):
            a = _bursty_runs(rng, rounds)
            # B is 1.1x A, with noise of its own as skewed as A's.
            b = 1.1 * _bursty_runs(rng, rounds)
            low, high = _rounds_interval(a, b)
            # The rounds' ratios b/a have median 1.1: a and b's noise is identically shaped.
            covered += low <= 1.1 <= high
        assert covered / 400 >= 0.94, (rounds, covered)
    # Ten ratios: the 2nd smallest and 2nd largest, as a sign test's table gives.
    assert _rounds_interval(np.ones(10), np.arange(1.0, 11.0)) == (2.0, 9.0)
    assert _rounds_interval(np.ones(20), np.arange(1.0, 21.0)) == (6.0, 15.0)
    # Five rounds give no 95% interval at all.
    assert _rounds_interval(np.ones(5), np.arange(1.0, 6.0)) == (0.0, float("inf"))

"""``--vs``: interleaved runs, the bootstrap interval, and the verdict."""

from __future__ import annotations

import numpy as np
import pytest

from hloscope.bench.compare import compare_samples
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
    from hloscope.bench.api import bench

    jax, jnp, f = elementwise()
    small, large = jnp.ones(1 << 19), jnp.ones(4 << 19)
    result = bench(f, small, vs=(f, large), budget=2.0, precision=0.03)
    c = result.comparison
    assert c.significant and c.ratio > 1 and "slower" in result.verdict
    assert 2.8 < c.ratio < 5.2, result.verdict
    assert c.ci_low <= c.ratio <= c.ci_high
    # The other way round: B is the faster one.
    flipped = bench(f, large, vs=(f, small), budget=2.0, precision=0.03)
    assert flipped.comparison.ratio < 1 and "faster" in flipped.verdict


def test_a_program_against_itself_is_no_significant_difference():
    from hloscope.bench.api import bench

    jax, jnp, f = elementwise()
    x = jnp.ones(1 << 18)
    # On a shared 2-core CI machine, with the other test worker busy, two halves of one run
    # have differed by 3% (CI 1.01-1.06): the test asks for the precision such a machine can
    # vouch for, so only a difference of 5% or more may be called one.
    result = bench(f, x, vs=(f, x), budget=1.5, precision=0.05)
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

"""The bench entry points: ``hloscope.bench`` is the package, ``hloscope.benchmark`` times one
program (a BenchResult) and ``hloscope.compare`` two against each other (a BenchComparison)."""

from __future__ import annotations

import importlib
import inspect
import types

import pytest

import hloscope
from tests.frameworks_needed import needs_framework


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path_factory.getbasetemp() / "hloscope-cache"))


def test_hloscope_bench_is_the_package_and_exports_bench_and_compare():
    import hloscope.bench as b  # a function shadowed the package here once

    assert isinstance(b, types.ModuleType) and b is hloscope.bench
    assert isinstance(hloscope.bench, types.ModuleType)
    program = importlib.import_module("hloscope.bench.program")
    import hloscope.bench.program as p

    assert p is program
    from hloscope.bench import api

    assert b.bench is api.bench and b.compare is api.compare
    assert hloscope.compare is api.compare
    assert {"benchmark", "compare"} <= set(hloscope.__all__) and "bench" not in hloscope.__all__


def test_bench_returns_one_type_and_compare_the_other():
    from hloscope.bench import api

    assert "vs" not in inspect.signature(api.bench).parameters
    assert inspect.signature(api.bench).return_annotation == "BenchResult"
    assert inspect.signature(api.compare).return_annotation == "BenchComparison"


def test_benchmark_times_a_function_into_a_bench_result():
    jax = needs_framework("jax")
    import jax.numpy as jnp

    f = jax.jit(lambda x: jnp.sin(x) + 1.0)
    result = hloscope.benchmark(f, jnp.ones(256), budget=0.2, precision=0.2)
    assert isinstance(result, hloscope.BenchResult)
    assert result.median_s > 0 and result.to_dict()["runs"] >= 1


def test_compare_times_two_programs_into_a_bench_comparison():
    jax = needs_framework("jax")
    import jax.numpy as jnp

    f = jax.jit(lambda x: x * 2.0)
    x = jnp.ones(256)
    result = hloscope.compare((f, x), (f, x), budget=0.3, precision=0.2)
    assert isinstance(result, hloscope.BenchComparison)
    assert isinstance(result.a, hloscope.BenchResult) and isinstance(result.b, hloscope.BenchResult)
    assert result.verdict and set(result.to_dict()) == {"a", "b", "comparison"}

"""Functions ``jax.jit`` cannot take as they are called: non-array leaves, a library's jit.

XLA is the oracle: the FLOPs of what hloscope captured equal ``cost_analysis()`` of the same
computation compiled the way the library documents (a plain ``jax.jit`` with the settings
closed over; Equinox's ``eqx.partition`` into arrays and the rest).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

from click.testing import CliRunner
from frameworks_needed import needs_framework

from hloscope.analysis.cost import module_cost
from hloscope.backends.traceable import traceable
from hloscope.cli import cli


@dataclasses.dataclass(frozen=True)
class Config:
    """Settings passed beside the arrays, as training scripts do: not a JAX type."""

    activation: str
    scale: float
    layers: int


def _step(params, x, config):
    import jax.numpy as jnp

    act = {"relu": lambda v: v * (v > 0), "tanh": jnp.tanh}[config.activation]
    for _ in range(config.layers):
        x = act(x @ params) * config.scale
    return x.sum()


def _cost(fn, *args):
    import jax

    cost = jax.jit(fn).lower(*args).compile().cost_analysis()
    return (cost[0] if isinstance(cost, list) else cost)["flops"]


def test_a_function_of_arrays_and_settings_is_traced_with_the_settings_fixed():
    needs_framework("jax")
    import jax.numpy as jnp

    import hloscope

    params, x = jnp.ones((64, 64)), jnp.ones((8, 64))
    config = Config("relu", 0.5, 3)
    captured = hloscope.capture(_step, params, x, config)
    module = captured.module("after")
    assert module.name == "jit__step"
    want = _cost(functools.partial(_step, config=config), params, x)
    assert module_cost(module).flops == want
    # Three layers, not one: the setting was read, not traced.
    assert want > 2.5 * _cost(functools.partial(_step, config=Config("relu", 0.5, 1)), params, x)


def test_a_function_jax_jit_takes_is_traced_as_jax_jit_traces_it():
    jax = needs_framework("jax")
    import jax.numpy as jnp

    def scale(x, n):
        return x * n

    jitted, args, kwargs = traceable(scale, (jnp.ones(3), 2), {})
    # The Python int stays an argument (a weakly typed scalar), as jax.jit(scale) makes it.
    assert args == (args[0], 2) and kwargs == {}
    assert len(jitted.trace(*args).jaxpr.in_avals) == 2
    already = jax.jit(scale, static_argnums=1)
    assert traceable(already, (jnp.ones(3), 2), {})[0] is already
    # jax.pmap has `lower` but no `trace`: jitted around, its axis kept (psum over it traces).
    summed = jax.pmap(lambda x: jax.lax.psum(x, "i"), axis_name="i")
    jitted, args, _ = traceable(summed, (jnp.ones((1, 4)),), {})
    assert len(args) == 1 and jitted.trace(*args).jaxpr is not None


EQX_PROGRAM = """
import equinox as eqx
import jax
import jax.numpy as jnp


@eqx.filter_jit
def step(model, x, y):
    def loss(model):
        return jnp.mean((jax.vmap(model)(x) - y) ** 2)

    value, grads = eqx.filter_value_and_grad(loss)(model)
    update = lambda p, g: p - 0.01 * g if eqx.is_array(p) else p
    return value, jax.tree_util.tree_map(update, model, grads)


def example_args():
    model = eqx.nn.MLP(16, 4, 64, 2, key=jax.random.key(0))
    return {"step": lambda: (model, jnp.ones((32, 16)), jnp.ones((32, 4)))}
"""


def test_an_equinox_filter_jit_program_is_captured(tmp_path: Path, monkeypatch):
    eqx = needs_framework("equinox")
    import jax

    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    script = tmp_path / "eqx_program.py"
    script.write_text(EQX_PROGRAM)
    result = CliRunner().invoke(cli, ["fusions", f"{script}:step", "--json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)

    # Equinox's documented mechanism: arrays traced, the rest of the model held fixed.
    namespace: dict = {}
    exec(compile(EQX_PROGRAM, str(script), "exec"), namespace)  # noqa: S102 - our own program
    step = namespace["step"]
    model, x, y = namespace["example_args"]()["step"]()
    dynamic, static = eqx.partition((model, x, y), eqx.is_array)

    def pure(dynamic):
        value, updated = step.__wrapped__(*eqx.combine(dynamic, static))
        return value, eqx.filter(updated, eqx.is_array)

    cost = jax.jit(pure).lower(dynamic).compile().cost_analysis()
    want = (cost[0] if isinstance(cost, list) else cost)["flops"]
    assert got["summary"]["flops"] == want
    explained = CliRunner().invoke(cli, ["explain", f"{script}:step", "--json"])
    assert explained.exit_code == 0, explained.output
    lines = json.loads(explained.stdout)["lines"]
    assert any(line["jaxpr"] and line["kernels"] for line in lines)


def test_bench_times_a_function_of_arrays_and_settings():
    needs_framework("jax")
    import jax.numpy as jnp

    from hloscope.bench import bench

    params, x = jnp.ones((64, 64)), jnp.ones((8, 64))
    config = Config("tanh", 0.5, 2)
    result = bench(_step, params, x, config, budget=0.2, profile=False)
    assert result.timing.median_s > 0
    assert result.flops == _cost(functools.partial(_step, config=config), params, x)


def test_bench_places_typed_random_keys_afresh_when_a_call_consumes_them():
    jax = needs_framework("jax")
    import jax.numpy as jnp

    from hloscope.bench import bench

    # jax.random.key(...) arrays have a key dtype NumPy cannot hold; x is donated, so every
    # run gets fresh copies of both arguments from the host, the key made a key again.
    noisy = jax.jit(lambda x, key: x + jax.random.normal(key, x.shape), donate_argnums=0)
    result = bench(noisy, jnp.ones(1024), jax.random.key(0), budget=0.2, profile=False)
    assert result.timing.median_s > 0 and len(result.timing.samples) >= 1

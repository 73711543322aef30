"""``hloscope memory SCRIPT.py:FUNCTION --scale ARG:DIM``: the peak fitted as a + b*size from
two compiles predicts a third compile within 5%, and the largest size under the limit."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.analysis.memory.fit import memory_device
from hloscope.bench.memory_scale import ScaleSpec, parse_scale, scale_memory
from hloscope.cli import cli
from hloscope.errors import UsageProblem

GiB = 1 << 30

jax = pytest.importorskip("jax")
jnp = jax.numpy

D, V, T = 64, 256, 32


def train_step(params, tokens):
    """A transformer-ish train step: embedding, one attention layer, an MLP, SGD."""

    def loss(p):
        x = p["embed"][tokens]
        q, k, v = x @ p["wq"], x @ p["wk"], x @ p["wv"]
        att = jax.nn.softmax(q @ jnp.swapaxes(k, -1, -2) / 8.0, axis=-1)
        x = x + (att @ v) @ p["wo"]
        x = x + jax.nn.gelu(x @ p["w1"]) @ p["w2"]
        return jnp.mean((x @ p["embed"].T) ** 2)

    grads = jax.grad(loss)(params)
    return jax.tree.map(lambda a, g: a - 1e-3 * g, params, grads)


def _params():
    shapes = {"embed": (V, D), "wq": (D, D), "wk": (D, D), "wv": (D, D), "wo": (D, D)}
    shapes |= {"w1": (D, 4 * D), "w2": (4 * D, D)}
    return {n: jax.ShapeDtypeStruct(s, jnp.float32) for n, s in shapes.items()}


def test_parse_scale():
    assert parse_scale("tokens:0") == ScaleSpec("tokens", 0)
    assert parse_scale("1:-1") == ScaleSpec(1, -1)
    assert parse_scale("x:0:8,16,40") == ScaleSpec("x", 0, (8, 16, 40))
    for bad in ("x", "x:y", ":0", "x:0:8,16", "x:0:8,8,16", "x:0:0,4,8", "x:0:1:2"):
        with pytest.raises(UsageProblem):
            parse_scale(bad)


def test_the_fit_predicts_a_third_compile_within_5_percent():
    from hloscope.drivers.memory import memory_of_function

    tokens = jax.ShapeDtypeStruct((8, T), jnp.int32)
    h100 = memory_device("h100")
    result = scale_memory(train_step, (_params(), tokens), {}, parse_scale("tokens:0"), h100, "80%")
    assert [p.size for p in result.points] == [8, 16] and result.check.size == 24
    assert result.slope > 0
    # The check is its own compile: the same peak as compiling the function at that size.
    direct = memory_of_function(train_step, _params(), jax.ShapeDtypeStruct((24, T), jnp.int32))
    assert result.check.peak_bytes == direct.peak_bytes
    assert abs(result.predict(24) - direct.peak_bytes) <= 0.05 * direct.peak_bytes
    assert abs(result.error) <= 0.05
    # The largest size is the last whose predicted peak is under 80% of 80 GiB.
    limit = int(80 * GiB * 0.8)
    assert result.limit_bytes == limit
    assert result.largest_size is not None
    assert result.predict(result.largest_size) <= limit < result.predict(result.largest_size + 1)
    payload = result.to_dict()
    assert payload["check"]["error"] == result.error and payload["backend"] == "cpu"


def test_a_tpu_judges_each_compile_padded_to_tiles():
    # The attention scores' last dimension (32) pads to 128 lanes: a larger slope on a TPU.
    tokens = jax.ShapeDtypeStruct((4, T), jnp.int32)
    spec = parse_scale("1:0:4,8,16")
    gpu = scale_memory(train_step, (_params(), tokens), {}, spec, memory_device("h100"), 0.8)
    tpu = scale_memory(train_step, (_params(), tokens), {}, spec, memory_device("tpu-v6e"), 0.8)
    assert tpu.slope > gpu.slope
    assert abs(tpu.error) <= 0.05


def test_bad_argument_or_dimension_is_a_usage_problem():
    args = (_params(), jax.ShapeDtypeStruct((8, T), jnp.int32))
    h100 = memory_device("h100")
    for spec, message in (
        ("nope:0", "no argument 'nope' (arguments: params, tokens)"),
        ("5:0", "argument 5 does not exist"),
        ("tokens:2", "no dimension 2"),
        ("params:0", "is not an array"),
    ):
        with pytest.raises(UsageProblem, match=message.replace("(", r"\(").replace(")", r"\)")):
            scale_memory(train_step, args, {}, parse_scale(spec), h100, 0.8)


def test_cli_scale_json_and_text(tmp_path: Path):
    script = tmp_path / "mlp.py"
    script.write_text(
        textwrap.dedent(
            """
            import jax, jax.numpy as jnp

            def step(w1, w2, x):
                return jax.grad(lambda a, b: jnp.mean(jnp.tanh(x @ a) @ b), (0, 1))(w1, w2)

            step.example_args = lambda: (
                jnp.ones((64, 128)), jnp.ones((128, 64)), jnp.ones((16, 64))
            )
            """
        )
    )
    target = f"{script}:step"
    runner = CliRunner()
    out = runner.invoke(cli, ["memory", target, "--json", "--device", "tpu-v5e", "--scale", "x:0"])
    assert out.exit_code == 0, out.output
    scale = json.loads(out.stdout)["scale"]
    assert [p["size"] for p in scale["points"]] == [16, 32] and scale["check"]["size"] == 48
    assert abs(scale["check"]["error"]) <= 0.05
    assert scale["largest_size"] > 48
    text = runner.invoke(cli, ["memory", target, "--device", "h100", "--scale", "x:0"])
    assert text.exit_code == 0, text.output
    assert "scale: argument x, dimension 0 (compiled on cpu)" in text.stdout
    assert "largest size under the 64.0 GiB limit of h100: " in text.stdout
    bad = runner.invoke(cli, ["memory", target, "--device", "h100", "--scale", "x"])
    assert bad.exit_code == 2 and "--scale 'x'" in bad.output


def test_cli_scale_needs_a_function_target():
    sample = Path(__file__).resolve().parent.parent / "samples" / "hlo"
    target = sample / "transformer_train.after_optimizations.txt"
    out = CliRunner().invoke(cli, ["memory", str(target), "--device", "h100", "--scale", "x:0"])
    assert out.exit_code == 2 and "SCRIPT.py:FUNCTION" in out.output

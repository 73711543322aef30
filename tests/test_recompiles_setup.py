"""One-time initialisation is not a recompile problem: no advice to move it into jit.

A program that makes its parameters with jax.random and jnp.zeros before its first jitted
call compiles JAX's own eager ops once per parameter shape. Those compiles run once, at start:
``hloscope recompiles`` says so and advises nothing about them. Eager compiles that keep coming
while the jitted work runs (an array of a new shape made every step) keep their advice. Each
script is a real child process; JAX's own ``backend_compile_duration`` events (its count of
compiles) are the oracle for how many compiles there were.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_framework

from hloscope.analysis.recompiles import AdviceKind
from hloscope.cli import cli

COUNTER = """
import jax, json, atexit
_seen = []
jax.monitoring.register_event_duration_secs_listener(
    lambda name, *a, **k: _seen.append(name) if name.endswith("backend_compile_duration") else None
)
atexit.register(lambda: open(OUT, "w").write(json.dumps(len(_seen))))
"""

MLP = """
import jax, jax.numpy as jnp

def init(key, sizes):
    params = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        key, sub = jax.random.split(key)
        params.append((jax.random.normal(sub, (a, b)) * 0.02, jnp.zeros((b,))))
    return params

@jax.jit
def step(params, x):
    def loss(p):
        h = x
        for w, b in p:
            h = jnp.tanh(h @ w + b)
        return (h ** 2).mean()
    grads = jax.grad(loss)(params)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)

params = init(jax.random.key(0), [64, 128, 256, 128, 10])
x = jnp.ones((32, 64))
for _ in range(5):
    params = step(params, x)
"""

CNN = """
import jax, jax.numpy as jnp

def init(key):
    shapes = [(3, 3, 3, 16), (3, 3, 16, 32), (3, 3, 32, 64)]
    keys = jax.random.split(key, len(shapes))
    kernels = [jax.random.uniform(k, s, minval=-0.1, maxval=0.1) for k, s in zip(keys, shapes)]
    scales = [jnp.full((s[-1],), 1.0) for s in shapes]
    return kernels, scales

def conv(x, w):
    return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

@jax.jit
def forward(params, images):
    kernels, scales = params
    for w, s in zip(kernels, scales):
        images = jax.nn.relu(conv(images, w) * s)
    return images.mean()

@jax.jit
def evaluate(params, images):
    return forward(params, images) * 2.0

params = init(jax.random.key(1))
images = jnp.ones((4, 16, 16, 3))
for _ in range(3):
    forward(params, images)
evaluate(params, images)
"""

# Eager ops while the jitted work runs: a batch of a new length padded eagerly every step.
PER_STEP = """
import jax, jax.numpy as jnp

@jax.jit
def step(w, x):
    return jnp.tanh(x @ w).sum()

w = jnp.zeros((64, 64))
for n in (8, 16, 24, 32):
    x = jnp.zeros((32, 64)).at[:n].set(jnp.ones((n, 64)) * 2.0)
    step(w, x)
"""


def _run(tmp_path: Path, source: str) -> tuple[str, dict, int]:
    needs_framework("jax")
    counts = tmp_path / "count.json"
    script = tmp_path / "program.py"
    script.write_text(f"OUT = {str(counts)!r}\n" + COUNTER + textwrap.dedent(source))
    env = {"COLUMNS": "80", "JAX_PLATFORMS": "cpu"}
    text = CliRunner().invoke(cli, ["recompiles", str(script)], env=env, catch_exceptions=False)
    assert text.exit_code == 0, text.output
    data = CliRunner().invoke(cli, ["recompiles", str(script), "--json"], env=env)
    assert data.exit_code == 0, data.output
    return text.stdout, json.loads(data.stdout), json.loads(counts.read_text())


@pytest.mark.parametrize("source", [MLP, CNN], ids=["mlp", "cnn"])
def test_initialisation_before_the_first_jitted_compile_gets_no_advice(
    tmp_path: Path, source: str
) -> None:
    text, data, jax_compiles = _run(tmp_path, source)
    said = " ".join(text.split())
    assert "outside jit" in said
    assert "all before the first jitted compile, one-time setup (not recompiles)" in said
    assert "inside the jitted function" not in said and " fix " not in said
    assert not any(f["advice"] for f in data["functions"])
    # The eager compiles are there, counted, not hidden: JAX's own count holds them all.
    eager = sum(f["compiles"] for f in data["functions"]) - 1 - (source is CNN)
    assert eager >= 4 and jax_compiles >= eager
    assert max(len(line) for line in text.splitlines()) <= 80


def test_eager_ops_during_the_jitted_work_keep_their_advice(tmp_path: Path) -> None:
    text, data, _ = _run(tmp_path, PER_STEP)
    said = " ".join(text.split())
    # A long temporary path wraps at 80 columns anywhere, even inside "program.py": the file
    # and line are looked for in the text without its white space.
    assert "inside the jitted function" in said and "program.py:18" in "".join(text.split())
    # w's jnp.zeros and the first step's eager ops came before step compiled; the rest after.
    assert "of them before the first jitted compile, one-time setup" in said
    assert "3 times after the first jitted compile" in said
    kinds = {a["kind"] for f in data["functions"] for a in f["advice"]}
    assert str(AdviceKind.EAGER) in kinds

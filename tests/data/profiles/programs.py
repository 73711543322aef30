"""The small programs whose profiles tests/data/profiles holds (run by regenerate.py).

Each function records one case into the folder given on the command line: a
``jax.profiler.trace`` of the program run a few times, and ``module.hlo``, the text of the very
executable that ran (``jax.jit(f).lower(...).compile()``, then called), so the trace's op names
are that module's. ``facts.json`` holds what the recording itself knows, for the tests to
check hloscope against: how many steps it marked, how many times each module ran, XLA's own
``cost_analysis()`` of each module and its name.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jax
import jax.numpy as jnp


def _facts(out: Path, compiled: dict, steps: int, runs: dict) -> None:
    facts = {
        "platform": jax.devices()[0].platform,
        "device_kind": jax.devices()[0].device_kind,
        "steps": steps,
        "runs": runs,
        "modules": {},
    }
    for name, exe in compiled.items():
        text = exe.as_text()
        module = text.split("\n", 1)[0].split()[1].rstrip(",")
        (out / f"{name}.hlo").write_text(text)
        cost = exe.cost_analysis()
        cost = cost[0] if isinstance(cost, list) else cost
        facts["modules"][name] = {
            "module": module,
            "flops": float(cost.get("flops", 0.0)),
            "bytes_accessed": float(cost.get("bytes accessed", 0.0)),
        }
    (out / "facts.json").write_text(json.dumps(facts, indent=1) + "\n")


def mlp(out: Path) -> None:
    """A step of several kernels (a product, an activation, a sort, reductions), run three
    times inside ``StepTraceAnnotation('train', step_num=i)``."""

    def step(w, x):
        y = jnp.tanh(x @ w)
        z = jnp.sort(y, axis=1)
        return (y * 2 + 1).sum(axis=0) + jnp.max(z, axis=0), jnp.cumsum(y, axis=0)

    w, x = jnp.ones((256, 256)) * 0.01, jnp.ones((128, 256))
    exe = jax.jit(step).lower(w, x).compile()
    jax.block_until_ready(exe(w, x))
    with jax.profiler.trace(str(out / "trace")):
        for i in range(3):
            with jax.profiler.StepTraceAnnotation("train", step_num=i):
                jax.block_until_ready(exe(w, x))
    _facts(out, {"step": exe}, 3, {"step": 3})


def loop(out: Path) -> None:
    """A ``fori_loop`` of four iterations (its body's kernels run four times per run), run
    twice with no step marker: the steps are the module's executions."""

    def body(i, carry):
        return jnp.sin(carry) @ carry * 0.5 + i

    def run(x):
        return jax.lax.fori_loop(0, 4, body, x)

    x = jnp.eye(128) * 0.1
    exe = jax.jit(run).lower(x).compile()
    jax.block_until_ready(exe(x))
    with jax.profiler.trace(str(out / "trace")):
        for _ in range(2):
            jax.block_until_ready(exe(x))
    _facts(out, {"run": exe}, 0, {"run": 2})


def two_modules(out: Path) -> None:
    """Two programs per step (a heavy one and a light one), two steps marked 'step'."""

    def heavy(a):
        return jnp.tanh(a @ a.T) @ a

    def light(a):
        return (a * 3.0).sum()

    a = jnp.ones((192, 192)) * 0.01
    big = jax.jit(heavy).lower(a).compile()
    small = jax.jit(light).lower(a).compile()
    jax.block_until_ready((big(a), small(a)))
    with jax.profiler.trace(str(out / "trace")):
        for i in range(2):
            with jax.profiler.StepTraceAnnotation("step", step_num=i):
                jax.block_until_ready((big(a), small(a)))
    _facts(out, {"heavy": big, "light": small}, 2, {"heavy": 2, "light": 2})


CASES = {"mlp": mlp, "loop": loop, "two_modules": two_modules}

if __name__ == "__main__":
    CASES[sys.argv[1]](Path(sys.argv[2]))

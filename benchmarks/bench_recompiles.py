"""What watching compiles costs (``hloscope.watch_compiles``), against the same code unwatched.

Two loops, each timed unwatched and watched in the same process, alternately, round by round;
printed are the ratio of the best rounds and the median of the per-round ratios (the steady
loop takes milliseconds, so a busy machine shows as noise in single rounds):

* **steady**: 1,000 calls of a small jitted function that compiled before the loop (no call
  compiles): the watcher's hooks sit on JAX's compile path only, so the budget is < 5 %; the
  ``with`` block itself (installing and removing the hooks) is inside the timing;
* **recompiling**: a fresh jitted function called with ``--shapes`` new shapes, so every call
  traces, lowers and compiles: the watcher's work per compile (reading the records,
  ``jax_explain_cache_misses``' explanation, the tracing context, the call site) against
  compile time, budget < 10 %.

    python benchmarks/bench_recompiles.py [--repeat N] [--compile-repeat N] [--calls N]
                                          [--shapes N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from hloscope.drivers.compile_watch import watch_compiles  # noqa: E402


@jax.jit
def small(x, y):
    return jnp.sin(x) * y + 1.0


def steady_loop(calls: int, watched: bool) -> float:
    x, y = jnp.ones((8, 8)), jnp.float32(2.0)
    small(x, y).block_until_ready()  # compiled before the first loop
    start = time.perf_counter()
    if watched:
        with watch_compiles() as watch:
            for _ in range(calls):
                out = small(x, y)
            out.block_until_ready()
        assert watch.report().compiles == 0
    else:
        for _ in range(calls):
            out = small(x, y)
        out.block_until_ready()
    return time.perf_counter() - start


def recompiling_loop(inputs: list[np.ndarray], watched: bool) -> float:
    def body(x):  # a new function object each run: every call compiles
        return jnp.tanh(x @ x.T).sum(axis=0) * 2.0

    fresh = jax.jit(body)
    start = time.perf_counter()
    if watched:
        with watch_compiles() as watch:
            for x in inputs:
                fresh(x).block_until_ready()
        assert watch.report().function("body").compiles == len(inputs)
    else:
        for x in inputs:
            fresh(x).block_until_ready()
    return time.perf_counter() - start


def timed_pairs(run, repeat: int) -> tuple[list[float], list[float]]:
    """Unwatched and watched times, the two alternating round by round."""
    plain, watched = [], []
    for _ in range(repeat):
        plain.append(run(False))
        watched.append(run(True))
    return plain, watched


def report(label: str, plain: list[float], watched: list[float], budget: float) -> None:
    best = min(watched) / min(plain)
    typical = statistics.median(w / p for w, p in zip(watched, plain))
    verdict = "ok" if best < budget else "OVER"
    print(
        f"{label}: unwatched {min(plain) * 1e3:8.2f} ms   watched {min(watched) * 1e3:8.2f} ms"
        f"   ratio {best:.3f} (best of each), {typical:.3f} (median of rounds)"
        f"   {verdict} < {budget:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=41, help="rounds of the steady loop")
    parser.add_argument("--compile-repeat", type=int, default=5, help="rounds of the other")
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--shapes", type=int, default=20)
    options = parser.parse_args()

    print(f"jax {jax.__version__} on {jax.devices()[0].platform}")
    steady_loop(10, True)  # warm: imports and the first hook installation
    plain, watched = timed_pairs(lambda w: steady_loop(options.calls, w), options.repeat)
    report(
        f"steady, {options.calls} calls, no compile, {options.repeat} rounds", plain, watched, 1.05
    )
    inputs = [np.ones((n, 32), np.float32) for n in range(1, options.shapes + 1)]
    plain, watched = timed_pairs(lambda w: recompiling_loop(inputs, w), options.compile_repeat)
    label = f"recompiling, {options.shapes} calls = {options.shapes} compiles"
    report(f"{label}, {options.compile_repeat} rounds", plain, watched, 1.10)


if __name__ == "__main__":
    main()

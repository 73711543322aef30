"""What ``hloscope recompiles SCRIPT.py`` costs on a whole short script, start-up included.

Measured the way a user runs it: each round starts fresh processes, ``python SCRIPT.py``
and ``hloscope recompiles SCRIPT.py`` (the same Python), one after the other, the order
alternating between rounds so that a machine getting busier or quieter favours neither. The
script is a short JAX program (a jitted step called with a few batch sizes, so it recompiles),
about two seconds on a laptop; ``--script`` times another. Printed: the median wall times,
the ratio of the medians and the median of the per-round ratios, with the budget (< 1.05).

    python benchmarks/bench_recompiles_script.py [--rounds N] [--script FILE.py]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = """
import jax
import jax.numpy as jnp


@jax.jit
def step(w, x, y):
    logits = jnp.tanh(x @ w)
    return ((logits - y) ** 2).mean()


grad = jax.jit(jax.grad(step))
w = jnp.ones((64, 64))
for n in (8, 16, 24, 32, 40, 48):  # the batch size changes: one compile each
    x, y = jnp.ones((n, 64)), jnp.zeros((n, 64))
    for _ in range(20):
        w = w - 0.01 * grad(w, x, y)
print(float(step(w, x, y)))
"""


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--script", type=Path, help="a script to time instead of the built-in")
    options = parser.parse_args()

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("COLUMNS", None)
    with tempfile.TemporaryDirectory(prefix="bench-recompiles-") as folder:
        script = options.script
        if script is None:
            script = Path(folder) / "short_script.py"
            script.write_text(textwrap.dedent(SCRIPT))
        plain_cmd = [sys.executable, str(script)]
        watched_cmd = [sys.executable, "-m", "hloscope", "recompiles", str(script)]
        timed(plain_cmd, env)  # warm the page cache and the .pyc files of both
        timed(watched_cmd, env)
        plain, watched = [], []
        for round_ in range(options.rounds):
            pair = [(plain, plain_cmd), (watched, watched_cmd)]
            for times, command in pair if round_ % 2 == 0 else reversed(pair):
                times.append(timed(command, env))
    ratio = statistics.median(watched) / statistics.median(plain)
    per_round = statistics.median(w / p for w, p in zip(watched, plain))
    verdict = "ok" if ratio < 1.05 else "OVER"
    print(f"python {sys.version.split()[0]}, {options.rounds} rounds, fresh processes")
    print(
        f"python SCRIPT.py: median {statistics.median(plain):.3f} s "
        f"(min {min(plain):.3f}); hloscope recompiles SCRIPT.py: median "
        f"{statistics.median(watched):.3f} s (min {min(watched):.3f})"
    )
    print(
        f"ratio {ratio:.3f} (medians), {per_round:.3f} (median of rounds), "
        f"+{statistics.median(watched) - statistics.median(plain):.3f} s   {verdict} < 1.05"
    )


if __name__ == "__main__":
    main()

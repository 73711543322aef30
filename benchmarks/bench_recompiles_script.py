"""What ``hloscope recompiles SCRIPT.py`` costs on a whole short script, start-up included.

Measured the way a user runs it: each round starts fresh processes, ``python SCRIPT.py``
and ``hloscope recompiles SCRIPT.py`` (the console script installed for the same Python, or
``python -m hloscope`` where there is none), one after the other, the order
alternating between rounds so that a machine getting busier or quieter favours neither. The
script is a short JAX program (a jitted step called with a few batch sizes, so it recompiles),
about two seconds on a laptop; ``--script`` times another. Printed for wall time and for CPU
time (user + system of every process: steadier on a busy machine): the medians, the ratio of
the medians, the median of the per-round ratios and the ratio of the minima (on a machine
others load, the rounds nobody disturbed), with the budget (< 1.05, judged on the medians).

    python benchmarks/bench_recompiles_script.py [--rounds N (20)] [--script FILE.py]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def _hloscope_command() -> list[str]:
    """How a user starts hloscope: its console script beside this Python (what pip installs;
    it imports the package from PYTHONPATH like ``-m`` would), else ``python -m hloscope``."""
    script = Path(sys.executable).parent / "hloscope"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "hloscope"]


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, of every process the command ran)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def summary(label: str, plain: list[float], watched: list[float]) -> str:
    ratio = statistics.median(watched) / statistics.median(plain)
    per_round = statistics.median(w / p for w, p in zip(watched, plain))
    verdict = "ok" if ratio < 1.05 else "OVER"
    return (
        f"{label}: python SCRIPT.py median {statistics.median(plain):.3f} s (min "
        f"{min(plain):.3f}), hloscope recompiles SCRIPT.py median "
        f"{statistics.median(watched):.3f} s (min {min(watched):.3f}); ratio {ratio:.3f} "
        f"(medians), {per_round:.3f} (median of rounds), {min(watched) / min(plain):.3f} "
        f"(minima: the least disturbed rounds), "
        f"+{statistics.median(watched) - statistics.median(plain):.3f} s   {verdict} < 1.05"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--script", type=Path, help="a script to time instead of the built-in")
    options = parser.parse_args()

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("COLUMNS", None)
    with tempfile.TemporaryDirectory(prefix="bench-recompiles-") as folder:
        # As installed: modules load from cached bytecode (the warm-up run writes it), also
        # where the environment says PYTHONDONTWRITEBYTECODE (a source tree would else be
        # compiled anew by every process, which no installed copy does).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "pycache")
        script = options.script
        if script is None:
            script = Path(folder) / "short_script.py"
            script.write_text(textwrap.dedent(SCRIPT))
        plain_cmd = [sys.executable, str(script)]
        watched_cmd = [*_hloscope_command(), "recompiles", str(script)]
        timed(plain_cmd, env)  # warm the page cache and the .pyc files of both
        kept = Path(folder) / "kept"
        timed([*watched_cmd, "-o", str(kept)], env)
        started = json.loads((kept / "manifest.json").read_text()).get("prestarted")
        plain, watched = [], []
        for round_ in range(options.rounds):
            pair = [(plain, plain_cmd), (watched, watched_cmd)]
            for times, command in pair if round_ % 2 == 0 else reversed(pair):
                times.append(timed(command, env))
    print(
        f"python {sys.version.split()[0]}, {options.rounds} rounds, fresh processes, "
        f"{os.cpu_count()} CPUs, watched as: {' '.join(watched_cmd[:-2])} (the script's child "
        f"started early: {'yes' if started else 'no'})"
    )
    print(summary("wall", [t[0] for t in plain], [t[0] for t in watched]))
    # CPU time: what the watcher adds, steadier than wall time on a machine others share.
    print(summary("cpu ", [t[1] for t in plain], [t[1] for t in watched]))


if __name__ == "__main__":
    main()

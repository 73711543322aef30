"""What explaining the persistent compilation cache costs: ``hloscope recompiles --vs DIR``'s
comparison of every miss with the kept run, for a run of ``--compiles`` compiles (100).

A script compiles one jitted function (a 12-op chain) at ``--compiles`` batch sizes, with a
cache folder. It runs twice under ``hloscope recompiles``: once kept with ``-o``, then again
with an XLA flag that enters JAX's key, so every compile misses and each must be matched to
one of the 100 compiles of the same module in the kept run and explained (the worst case of
the matching: one module name for all of them). Timed in this process, on the two runs'
records: the explanation step alone (``cache_verdicts``) and the whole ledger with and
without it (``build_ledger``). Budget: the explanation under 1 s.

Then what recording the key's parts costs around each compile (JAX hashes each part once more
when its key logger is at DEBUG, and the watcher prints the module's text): in a child with a
cache folder, ``--watched`` rounds of 10 fresh-shape compiles each, unwatched and watched
alternately; printed is the ratio of the medians.

    python benchmarks/bench_recompiles_cache.py [--compiles N] [--repeat N] [--watched N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hloscope.analysis.recompiles import build_ledger, cache_verdicts  # noqa: E402
from hloscope.capture.compile_watch import CompileRecord  # noqa: E402

SCRIPT = """\
import os
import jax
import jax.numpy as jnp

jax.config.update("jax_compilation_cache_dir", os.environ["CACHE"])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)


@jax.jit
def step(x):
    for _ in range(4):
        x = jnp.tanh(x @ x.T @ x) * 0.5 + jnp.sin(x)
    return x


for n in range(1, int(os.environ["COMPILES"]) + 1):
    step(jnp.ones((n, 16), jnp.float32)).block_until_ready()
"""


def run(folder: Path, script: Path, name: str, compiles: int, flags: str) -> list[CompileRecord]:
    env = dict(os.environ, CACHE=str(folder / "cache"), COMPILES=str(compiles), XLA_FLAGS=flags)
    command = [sys.executable, "-m", "hloscope", "recompiles", str(script), "-o"]
    start = time.perf_counter()
    subprocess.run([*command, str(folder / name)], env=env, check=True, capture_output=True)
    print(f"  {name}: hloscope recompiles ran in {time.perf_counter() - start:.1f} s")
    data = json.loads((folder / name / "recompiles.json").read_text())
    return [CompileRecord.from_dict(r) for r in data["records"]]


WATCH_COST = """\
import statistics, sys, tempfile, time
import jax
import jax.numpy as jnp
from hloscope.drivers.compile_watch import watch_compiles

jax.config.update("jax_compilation_cache_dir", tempfile.mkdtemp())
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
size = iter(range(1, 100_000))


def compiles(watched):
    @jax.jit
    def step(x):
        for _ in range(4):
            x = jnp.tanh(x @ x.T @ x) * 0.5 + jnp.sin(x)
        return x

    shapes = [(next(size), 16) for _ in range(10)]
    inputs = [jnp.ones(s) for s in shapes]
    start = time.perf_counter()
    if watched:
        with watch_compiles() as watch:
            for x in inputs:
                step(x).block_until_ready()
        assert all(e.persistent_cache.result == "miss" for e in watch.report().functions[0].events)
    else:
        for x in inputs:
            step(x).block_until_ready()
    return time.perf_counter() - start


compiles(False)
plain, watched = [], []
for _ in range(int(sys.argv[1])):
    plain.append(compiles(False))
    watched.append(compiles(True))
print(f"{statistics.median(watched) / statistics.median(plain):.3f}")
"""


def best(repeat: int, work) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compiles", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--watched", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as temp:
        folder = Path(temp)
        script = folder / "sizes.py"
        script.write_text(SCRIPT)
        print(f"two runs of {options.compiles} compiles of one function:")
        before = run(folder, script, "first", options.compiles, "")
        now = run(folder, script, "second", options.compiles, "--xla_backend_optimization_level=1")
    verdicts = cache_verdicts(now, before, "first")
    misses = [v for v in verdicts.values() if v.result == "miss"]
    explained = [v for v in misses if any(c.part == "XLA flags" for c in v.changed)]
    print(f"{len(now)} compiles, {len(misses)} misses, {len(explained)} name the XLA flag")
    alone = best(options.repeat, lambda: cache_verdicts(now, before, "first"))
    plain = best(options.repeat, lambda: build_ledger(now, "script"))
    compared = best(
        options.repeat,
        lambda: build_ledger(now, "script", previous=before, previous_label="first"),
    )
    print(f"explanation alone (cache_verdicts): {alone * 1000:.1f} ms (budget 1 s)")
    print(
        f"ledger without --vs {plain * 1000:.1f} ms, with --vs {compared * 1000:.1f} ms "
        f"(ratio {compared / plain:.2f})"
    )
    child = [sys.executable, "-c", WATCH_COST, str(options.watched)]
    ratio = subprocess.run(child, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    print(f"watched/unwatched, 10 compiles a round, cache on: {ratio.strip()} (median)")


if __name__ == "__main__":
    main()

"""``hloscope bench``'s own costs, each against its baseline measured in the same run:

* **harness overhead**: first exactly, what :func:`hloscope.bench.timing.measure` adds to
  one run (a call that does nothing, timed by the harness and by a raw loop), as a share of a
  jitted program of about 1 ms; then that program itself timed by the harness and by a raw
  ``f(x).block_until_ready()`` loop of the same number of runs, in alternation (``--rounds``
  blocks of about 250 ms each, medians of the per-block ratios): the harness's wall time per
  run over the raw loop's, and the median it reports over the raw loop's mean. The target is
  under 2% (a ratio under 1.02); on a shared machine the second part mostly shows the noise,
  the first part is the harness's own cost.
* **--per-kernel on the samples' transformer** (samples/hlo/, its optimized HLO, about 200
  kernels): the wall time of ``hloscope.benchmark(..., per_kernel=True)`` with the default budgets,
  extraction and compilation included, against the one minute the issue allows; the program's
  own timing in the same call is printed beside it.
* **CPU calibration**: a fresh :func:`hloscope.bench.peaks.calibrate_cpu` (into a temporary
  cache) against its five-second allowance, with its figures: per roof the rate, how many runs
  it is the best of, their spread, and the last-level cache size the arrays were sized by.
  This one is asserted: the script exits 1 when the calibration takes five seconds or more.
* **roofline positions** (issue 18): under that fresh calibration, a jitted f32 matmul of a
  size the calibration did not time, and a stream over an array twice the last-level cache:
  each program's share of its roof, which must not pass 100% (a program that beats the
  calibration raises it, and the line says so).
* **A/A on memory-bound code** (issue 18): ``--repeats`` comparisons of an elementwise add
  over arrays the size of the last-level cache against itself (loaded twice, as ``--vs A A``
  does), with the verdicts, then the same program against four times its work.

    python benchmarks/bench_bench.py [--rounds N] [--repeats N] [--no-per-kernel]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

TRANSFORMER = ROOT / "samples" / "hlo" / "transformer_train.after_optimizations.txt"
CALIBRATION_LIMIT_S = 5.0
PER_KERNEL_LIMIT_S = 60.0


def _one_ms_program():
    """A jitted matmul chain sized to take about a millisecond here, and its argument."""
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda x: jnp.tanh(x @ x) @ x)
    n = 64
    while True:
        x = jnp.asarray(np.random.default_rng(0).standard_normal((n, n), dtype=np.float32) / n)
        f(x).block_until_ready()
        start = time.perf_counter()
        for _ in range(20):
            f(x).block_until_ready()
        took = (time.perf_counter() - start) / 20
        if took >= 1e-3 or n >= 2048:
            return f, x, took
        n = int(n * min(2.0, max(1.1, (1e-3 / took) ** (1 / 3))))


def _added_per_run(runs: int = 200_000) -> float:
    """What the harness adds to one run, in seconds: the same do-nothing call (an array that
    is already computed) timed by the harness and by a raw loop, best of five each."""
    import jax.numpy as jnp

    from hloscope.bench.timing import measure

    ready = jnp.ones(4)
    ready.block_until_ready()

    def noop():
        return ready

    raw, harness = [], []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(runs):
            noop().block_until_ready()
        raw.append((time.perf_counter() - start) / runs)
        start = time.perf_counter()
        measure(noop, precision=0.5, min_runs=runs, max_runs=runs, warmup=0)
        harness.append((time.perf_counter() - start) / runs)
    return max(0.0, min(harness) - min(raw))


def bench_overhead(rounds: int) -> None:
    from hloscope.bench.timing import measure

    f, x, per_call = _one_ms_program()
    runs = max(20, int(0.25 / per_call))  # blocks of ~250 ms: load changes little within one
    wall_ratios, median_ratios = [], []
    for i in range(rounds):
        times = {}
        for side in ("raw", "harness") if i % 2 == 0 else ("harness", "raw"):
            start = time.perf_counter()
            if side == "raw":
                for _ in range(runs):
                    f(x).block_until_ready()
            else:
                timing = measure(f, (x,), precision=0.5, min_runs=runs, max_runs=runs, warmup=0)
            times[side] = (time.perf_counter() - start) / runs
        wall_ratios.append(times["harness"] / times["raw"])
        median_ratios.append(timing.median_s / times["raw"])
    added = _added_per_run()
    print(
        f"harness overhead  per run on a program that does nothing (a ready array): "
        f"{added * 1e6:.2f} us = {added / per_call:.2%} of the {per_call * 1e3:.2f} ms program"
    )
    print(
        f"                  the {per_call * 1e3:.2f} ms program, {rounds} alternating rounds of "
        f"{runs} runs each:"
    )
    print(
        f"  wall per run, harness / raw loop: median {statistics.median(wall_ratios):.4f} "
        f"(p25 {np.percentile(wall_ratios, 25):.4f}, p75 {np.percentile(wall_ratios, 75):.4f};"
        " target < 1.02)"
    )
    print(
        f"  reported median / raw loop mean:  median {statistics.median(median_ratios):.4f} "
        f"(p25 {np.percentile(median_ratios, 25):.4f}, p75 {np.percentile(median_ratios, 75):.4f})"
    )


def bench_per_kernel() -> None:
    import hloscope
    from hloscope.bench.api import bench
    from hloscope.bench.extract import kernel_instructions

    kernels = len(kernel_instructions(hloscope.parse(TRANSFORMER)))
    start = time.perf_counter()
    result = bench(str(TRANSFORMER), per_kernel=True)
    wall = time.perf_counter() - start
    print(f"--per-kernel on {TRANSFORMER.name} ({kernels} kernels), default budgets:")
    print(
        f"  wall {wall:.1f} s / limit {PER_KERNEL_LIMIT_S:.0f} s = {wall / PER_KERNEL_LIMIT_S:.2f}"
        f"  ({len(result.kernels)} timed, {len(result.skipped)} skipped; the program's own "
        f"timing {result.timing.elapsed_s:.1f} s of it)"
    )
    print(
        f"  program median {result.median_s * 1e3:.3f} ms, kernels' sum "
        f"{result.kernels_total_s * 1e3:.3f} ms "
        f"({result.kernels_total_s / result.median_s:.2f} of it), launch "
        f"{(result.launch_s or 0) * 1e6:.1f} us taken off each kernel"
    )


def bench_calibration() -> bool:
    """Calibrate into a temporary cache (left in ``HLOSCOPE_CACHE`` for what follows)."""
    from hloscope.analysis.peaks import calibration_summary
    from hloscope.bench.peaks import calibrate_cpu

    os.environ["HLOSCOPE_CACHE"] = tempfile.mkdtemp(prefix="hloscope-bench-")
    start = time.perf_counter()
    peak = calibrate_cpu()
    took = time.perf_counter() - start
    ok = took < CALIBRATION_LIMIT_S
    print(
        f"CPU calibration   {took:.2f} s / limit {CALIBRATION_LIMIT_S:.0f} s = "
        f"{took / CALIBRATION_LIMIT_S:.2f}{'' if ok else '  TOO SLOW'}"
    )
    summary = calibration_summary(peak.calibration) or {}
    print(f"  last-level cache {summary['llc_bytes'] >> 20} MiB ({summary['llc_source']})")
    for part, unit, scale in (
        ("compute", "flops_per_s", "GFLOP/s"),
        ("memory", "bytes_per_s", "GB/s"),
        ("cache", "bytes_per_s", "GB/s"),
    ):
        figures = summary[part]
        where = (
            f"f32 {figures['best_size']}x{figures['best_size']} matmul"
            if part == "compute"
            else f"{figures['kernel']} of {figures['array_bytes'] >> 20} MiB"
        )
        print(
            f"  {part:8} {figures[unit] / 1e9:8.2f} {scale}  best of {figures['best_of']:2} runs,"
            f" spread {figures['spread']:.0%}  ({where})"
        )
    return ok


def bench_roofline() -> None:
    import jax
    import jax.numpy as jnp

    from hloscope.bench.api import bench
    from hloscope.bench.peaks import last_level_cache

    llc = last_level_cache().bytes
    x = jnp.ones((768, 768), jnp.float32)
    stream = jnp.ones(2 * llc // 4, jnp.float32)
    mib = 2 * llc >> 20
    cases = (
        ("f32 768x768 matmul", jax.jit(lambda a, b: a @ b), (x, x)),
        (f"sum over {mib} MiB", jax.jit(lambda v: jnp.sum(v * 2.0)), (stream,)),
        (f"scale-and-copy of {mib} MiB", jax.jit(lambda v: v * 2.0 + 1.0), (stream,)),
    )
    for label, fn, args in cases:
        result = bench(fn, *args, budget=2.0)
        line = result.roofline
        raised = ", ".join(r["roof"] for r in result.recalibrated)
        print(
            f"roofline          {label}: {line.bound.value}-bound, {line.fraction:.0%} of the "
            f"{line.memory_level.value if line.bound.value == 'memory' else 'compute'} roof"
            + (f" (raised the {raised} roof)" if raised else "")
            + (
                "; told its fresh output is paged in"
                if any("fresh" in n for n in result.notes)
                else ""
            )
        )


def bench_aa(repeats: int) -> None:
    import jax
    import jax.numpy as jnp

    from hloscope.bench import compare
    from hloscope.bench.peaks import last_level_cache

    add = jax.jit(lambda a, b: a + b)
    n = last_level_cache().bytes // 4
    x, y = jnp.ones(n, jnp.float32), jnp.full(n, 2.0, jnp.float32)
    quiet = 0
    for i in range(repeats):
        verdict = compare((add, x, y), (add, x, y), budget=2.0, seed=i).verdict
        quiet += verdict.startswith("no significant difference")
        print(f"A/A {i + 1:2}/{repeats}  {verdict}")
    print(f"A/A               {quiet} of {repeats} say no significant difference")
    x4, y4 = jnp.ones(4 * n, jnp.float32), jnp.full(4 * n, 2.0, jnp.float32)
    print(f"A vs 4x work      {compare((add, x, y), (add, x4, y4), budget=2.0).verdict}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--repeats", type=int, default=6, help="A/A comparisons")
    parser.add_argument("--no-per-kernel", action="store_true", help="skip the transformer")
    args = parser.parse_args(argv[1:])
    import jax

    print(f"jax {jax.__version__}, device {jax.devices()[0]} ({jax.devices()[0].device_kind})")
    ok = bench_calibration()
    bench_roofline()
    bench_aa(args.repeats)
    bench_overhead(args.rounds)
    if not args.no_per_kernel:
        bench_per_kernel()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

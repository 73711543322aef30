"""How much does ``hloscope.capture`` cost over a plain JAX compile?

Times, in one process, the in-process capture of ``samples/transformer_train.py``'s training step
against ``step.lower(*args).compile()`` of the same function (the step is already ``jax.jit``-ed,
so that *is* ``jax.jit(f).lower(...).compile()`` for it). Every measurement uses a fresh step from
``make()`` (a new function object, so no tracing, lowering or compilation cache can answer), the
two ways alternate so machine load hits both alike, and the median of N runs is reported.

A capture does everything the plain compile does, plus: the jaxpr as text, StableHLO printed with
locations, XLA's private dump of this one compile (HLO before/after, buffer assignment, memory
report, LLVM IR and object code XLA writes alongside), reading it back, cost and memory analysis.
The target is a ratio of at most 1.3.

    python benchmarks/bench_capture.py [--layers 2] [--width 64] [--repeat 5] [--passes REGEX]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--seq", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--passes", default=None, help="also time a capture with per-pass snapshots"
    )
    options = parser.parse_args(argv)

    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "samples"))
    import transformer_train

    import hloscope

    def fresh():
        return transformer_train.make(layers=options.layers, width=options.width, seq=options.seq)

    def plain() -> float:
        step, args = fresh()
        start = time.perf_counter()
        step.lower(*args).compile()
        return time.perf_counter() - start

    def captured(passes: str | None = None) -> float:
        step, args = fresh()
        start = time.perf_counter()
        hloscope.capture(step, *args, passes=passes)
        return time.perf_counter() - start

    plain(), captured()  # warm up: imports, backend start, first-call caches of jax itself
    times: dict[str, list[float]] = {"plain compile": [], "capture": []}
    if options.passes:
        times[f"capture --passes {options.passes}"] = []
    for _ in range(options.repeat):
        times["plain compile"].append(plain())
        times["capture"].append(captured())
        if options.passes:
            times[f"capture --passes {options.passes}"].append(captured(options.passes))

    step, args = fresh()
    cap = hloscope.capture(step, *args)
    base = statistics.median(times["plain compile"])
    print(
        f"transformer train step: layers={options.layers} width={options.width} seq={options.seq}; "
        f"optimized HLO {len(cap.stages['optimized_hlo']):,} chars, "
        f"{sum(1 for _ in cap.module('after').instructions()):,} instructions; median of "
        f"{options.repeat}"
    )
    for label, samples in times.items():
        median = statistics.median(samples)
        print(f"  {label:<28} {median * 1000:8.1f} ms   x{median / base:.2f}")
    ratio = statistics.median(times["capture"]) / base
    verdict = "meets" if ratio <= 1.3 else "MISSES"
    print(f"capture / plain compile = {ratio:.2f} ({verdict} the 1.3x target)")


if __name__ == "__main__":
    main()

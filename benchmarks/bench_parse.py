"""Parser speed against XLA's own C++ parser, measured in the same process and the same run.

    python benchmarks/bench_parse.py [--repeat N] [--big PATH]

Inputs: (a) the optimized HLO of a deep transformer train step generated from samples/
(``samples/regenerate.py --big``; generated once and cached in /tmp), (b) the MobileNetV2
training step from ../shared/corpus. For each it prints the best-of-N parse time of
``hloscope.parse`` and of jaxlib's ``hlo_module_from_text`` and their ratio (>= 1.0 means
hloscope is at least as fast), the time to build the networkx graph, and the peak memory of a
parsed module as a multiple of the text size. Last, the wall time of ``hloscope summary`` on a
1 MB module in a fresh interpreter (start-up included).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import hloscope  # noqa: E402
from hloscope.backends import jaxlib_adapter  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "generated"


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def peak_memory_ratio(text: str) -> float:
    gc.collect()
    tracemalloc.start()
    module = hloscope.parse(text)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del module
    return peak / len(text.encode())


def big_transformer(path: Path) -> Path:
    if not path.exists():
        print(f"generating {path} with samples/regenerate.py --big ...", flush=True)
        subprocess.run(
            [sys.executable, str(ROOT / "samples" / "regenerate.py"), "--big", str(path)],
            check=True,
        )
    return path


def bench_file(label: str, path: Path, repeat: int) -> None:
    text = path.read_text()
    xla_parse = jaxlib_adapter.private_symbol("hlo_module_from_text")
    hloscope.parse(text)  # warm caches (shape cache, regexes) as a long-running tool would have
    ours = best(lambda: hloscope.parse(text), repeat)
    theirs = best(lambda: xla_parse(text), repeat)
    module = hloscope.parse(text)
    n = sum(len(c.instructions) for c in module.computations)
    graph_time = best(lambda: module.graph(), repeat)
    graph_all = best(lambda: [module.graph(c) for c in module.computations], 1)
    ratio = theirs / ours
    print(f"{label}: {len(text) / 1e6:.2f} MB, {n} instructions")
    print(f"  hloscope.parse        {ours * 1e3:8.1f} ms  ({len(text) / ours / 1e6:.1f} MB/s)")
    print(
        f"  XLA hlo_module_from_text {theirs * 1e3:5.1f} ms  ({len(text) / theirs / 1e6:.1f} MB/s)"
    )
    print(f"  ratio XLA/hloscope    {ratio:8.2f}x  (target >= 1.5, issue 9)")
    print(
        f"  graph (entry)         {graph_time * 1e3:8.1f} ms;  all computations "
        f"{graph_all * 1e3:.1f} ms"
    )
    print(f"  peak memory of parse  {peak_memory_ratio(text):8.1f}x text size  (target < 10x)")


def bench_summary() -> None:
    files = list(CORPUS.glob("*/*_optimizations.txt")) + list(
        (CORPUS.parent / "xla-tests").glob("*.hlo")
    )
    candidates = sorted(files, key=lambda p: abs(p.stat().st_size - 1_000_000))
    if not candidates:
        return
    path = candidates[0]
    cmd = [sys.executable, "-m", "hloscope.cli", "summary", str(path)]
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        times.append(time.perf_counter() - start)
    print(
        f"hloscope summary on {path.name[:60]} ({path.stat().st_size / 1e6:.2f} MB): "
        f"median {statistics.median(times):.2f} s wall, interpreter start included (target ~1 s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--big", type=Path, default=Path("/tmp/hloscope_bench_transformer.txt"))
    args = parser.parse_args()
    bench_file("transformer train step (samples, --big)", big_transformer(args.big), args.repeat)
    mobilenet = sorted(CORPUS.glob("tf_keras_mobilenet_train/*cpu_after_optimizations.txt"))
    if mobilenet:
        bench_file("MobileNetV2 train step (corpus)", mobilenet[-1], args.repeat)
    bench_summary()


if __name__ == "__main__":
    main()

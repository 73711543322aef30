"""Parser speed against XLA's own C++ parser, measured in the same process and the same run.

    python benchmarks/bench_parse.py [--rounds N] [--big PATH] [--mobilenet PATH] [--scale PATH]
                                     [--against TREE]

Inputs: (a) the optimized HLO of a deep transformer train step generated from samples/
(``samples/regenerate.py --big``; generated once and cached in /tmp), (b) the MobileNetV2
training step from ../shared/corpus (or ``--mobilenet PATH``, a copy of it), (c) with
``--scale PATH``, the 54 MB module of ``samples/regenerate.py --big PATH --big-layers 48``.
For each, ``hloscope.parse`` and jaxlib's ``hlo_module_from_text`` run in alternating rounds
(one of each per round, so both see the same load); it prints the median of each one's time
and the median over rounds of the ratio XLA / hloscope (>= 1.0 means hloscope is at least as
fast), in CPU time of this thread (what a busy machine disturbs least: other processes take
the cores, not this thread's time) and in wall time; then the time to build the networkx graph
and the peak memory of a parsed module as a multiple of the text size. ``--against TREE``
times another checkout's ``hloscope.parse`` (``git worktree add TREE REV``) in the same
rounds. Last, the wall time of ``hloscope summary`` on a 1 MB module in a fresh interpreter
(start-up included), and the issue's target (issue 36: at least 2.5x XLA's parser on every
module) against each module's CPU ratio. On the chip's host, the whole comparison in one
command: ``python3 benchmarks/bench_parse.py --scale /tmp/big48.txt --big
.chip/hloscope_bench_transformer.txt --mobilenet .chip/mobilenet_cpu_after_optimizations.txt``.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import hloscope  # noqa: E402
from hloscope.backends import _jaxlib as jaxlib_adapter  # noqa: E402

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


# "cpu": this thread's CPU time; "cpu+forked": with that of the children a parse forked for
# its checks (hloscope/hlo/parser/_forked.py; none on fewer than 4 CPUs); "wall".
CLOCKS = ("cpu", "cpu+forked", "wall")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def alternating(fns: dict[str, Callable[[], object]], rounds: int) -> dict[str, dict]:
    """Rounds of one call of each function in turn; per clock (:data:`CLOCKS`), the median
    time of each and the median over rounds of XLA's time / each one's; under "faults", the
    median number of minor page faults of each call (pages of memory touched for the first
    time: on a virtual machine each may cost time that no CPU clock of the thread shows)."""
    times = {clock: {key: [] for key in fns} for clock in (*CLOCKS, "faults")}
    forked = False
    for _ in range(rounds):
        for key, fn in fns.items():
            if forked:
                # After a fork every page of this process is copy-on-write, and the next call
                # (XLA's parser, say) pays a page fault at each page it writes: a cost of the
                # fork, not of that call. An untimed call takes those faults first.
                fn()
            gc.collect()
            start_children = children_cpu()
            start_faults = minor_faults()
            start_cpu, start_wall = time.thread_time(), time.perf_counter()
            fn()
            cpu = time.thread_time() - start_cpu
            times["wall"][key].append(time.perf_counter() - start_wall)
            times["faults"][key].append(minor_faults() - start_faults)
            times["cpu"][key].append(cpu)
            times["cpu+forked"][key].append(cpu + children_cpu() - start_children)
            forked = forked or children_cpu() > start_children
    median = statistics.median
    out: dict[str, dict] = {}
    out["faults"] = {key: median(values) for key, values in times.pop("faults").items()}
    for clock, by_key in times.items():
        xla = by_key["xla"]
        out[clock] = {
            key: (median(values), median(x / v for x, v in zip(xla, values)))
            for key, values in by_key.items()
        }
    return out


def other_tree_parse(tree: Path) -> Callable[[str], object]:
    """``hloscope.parse`` of another checkout (``git worktree add DIR REV``), loaded beside
    this tree's in this process: its modules are imported under the same names, kept alive by
    the function, and this tree's put back."""
    ours = {k: v for k, v in sys.modules.items() if k == "hloscope" or k.startswith("hloscope.")}
    for name in ours:
        del sys.modules[name]
    sys.path.insert(0, str(tree))
    try:
        import hloscope as other  # noqa: PLC0415 - the other tree's, on purpose

        other_parse = other.parse
    finally:
        sys.path.remove(str(tree))
        for name in [k for k in sys.modules if k == "hloscope" or k.startswith("hloscope.")]:
            del sys.modules[name]
        sys.modules.update(ours)
    return other_parse


def bench_file(
    label: str, path: Path, rounds: int, graphs: bool = True, against: Path | None = None
) -> dict[str, float]:
    """Print the comparison of ``path``'s parse with XLA's (see the module docstring); return
    the median over rounds of XLA's time / hloscope's, per clock (:data:`CLOCKS`)."""
    text = path.read_text()
    xla_parse = jaxlib_adapter.private_symbol("hlo_module_from_text")
    fns: dict[str, Callable[[], object]] = {
        "hloscope": lambda: hloscope.parse(text),
        "xla": lambda: xla_parse(text),
    }
    if against is not None:
        old_parse = other_tree_parse(against)
        fns["other tree"] = lambda: old_parse(text)
    for fn in fns.values():
        fn()  # warm caches (shape cache, regexes) as a long-running tool would have
    m = alternating(fns, rounds)
    module = hloscope.parse(text)
    n = sum(len(c) for c in module.computations)
    print(f"{label}: {len(text) / 1e6:.2f} MB, {n} instructions, {rounds} alternating rounds")
    forked = m["cpu+forked"]["hloscope"][0] > m["cpu"]["hloscope"][0]
    for clock in CLOCKS if forked else ("cpu", "wall"):
        for key in fns:
            seconds, ratio = m[clock][key]
            speed = len(text) / seconds / 1e6
            line = f"  {clock:10s}: {key:10s} {seconds * 1e3:8.1f} ms ({speed:5.1f} MB/s)"
            if key != "xla":
                line += f"; XLA / {key} {ratio:.2f}x (median of rounds; target >= 2.5, issue 36)"
            print(line)
    faults = ", ".join(f"{key} {count:.0f}" for key, count in m["faults"].items())
    print(f"  minor page faults per parse (median): {faults}")
    print(f"  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if graphs:
        graph_and_memory(module, text, rounds)
    return {clock: m[clock]["hloscope"][1] for clock in CLOCKS}


def graph_and_memory(module: hloscope.Module, text: str, rounds: int) -> None:
    graph_time = best(lambda: module.graph(), rounds)
    graph_all = best(lambda: [module.graph(c) for c in module.computations], 1)
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
    parser.add_argument("--rounds", "--repeat", type=int, default=9)
    parser.add_argument("--big", type=Path, default=Path("/tmp/hloscope_bench_transformer.txt"))
    parser.add_argument(
        "--mobilenet",
        type=Path,
        help="the MobileNetV2 module (default: the corpus's tf_keras_mobilenet_train, if there)",
    )
    parser.add_argument(
        "--scale",
        type=Path,
        help="also the 54 MB module (samples/regenerate.py --big PATH --big-layers 48)",
    )
    parser.add_argument(
        "--against",
        type=Path,
        metavar="TREE",
        help="also time another checkout's hloscope.parse in the same rounds "
        "(git worktree add TREE REV)",
    )
    args = parser.parse_args()
    old = args.against
    ratios: dict[str, dict[str, float]] = {}
    big = big_transformer(args.big)
    ratios["transformer step"] = bench_file(
        "transformer train step (samples, --big)", big, args.rounds, against=old
    )
    mobilenet = args.mobilenet or mobilenet_file()
    if mobilenet is not None:
        ratios["MobileNetV2 step"] = bench_file(
            "MobileNetV2 train step (corpus)", mobilenet, args.rounds, against=old
        )
    if args.scale is not None:
        rounds = max(3, args.rounds // 3)
        ratios["54 MB module"] = bench_file(
            "48-layer transformer (--scale)", args.scale, rounds, False, against=old
        )
    bench_summary()
    # The target in one place: XLA's parse time / hloscope's, CPU, on every module.
    print("issue 36, parse at least 2.5x XLA's parser (median of rounds, XLA / hloscope):")
    for label, by_clock in ratios.items():
        cells = [
            f"{clock} {ratio:5.2f}x ({'met' if ratio >= 2.5 else 'NOT met'})"
            for clock, ratio in by_clock.items()
        ]
        print(f"  {label:18s} " + ", ".join(cells))


def mobilenet_file() -> Path | None:
    found = sorted(CORPUS.glob("tf_keras_mobilenet_train/*cpu_after_optimizations.txt"))
    return found[-1] if found else None


if __name__ == "__main__":
    main()

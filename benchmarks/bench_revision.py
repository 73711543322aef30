"""This tree against an earlier revision, in the same run: parse ratios and the fusion report.

    git worktree add /tmp/oldtree REV
    python benchmarks/bench_revision.py /tmp/oldtree [--rounds 3]

A change must not make hloscope slower, and this machine's load varies from minute to minute,
so both trees are measured in alternating rounds, each in a fresh interpreter with that tree
first on ``sys.path``. Each round reports, for the transformer train step of
``bench_parse.py`` and the MobileNetV2 train step of the corpus: ``hloscope.parse`` against
XLA's own parser on the same text in the same process (the ratio XLA time / hloscope time),
and ``fusion_report`` of MobileNetV2 on an already parsed module. The best of each is printed
per tree, then the ratio new / old.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "generated" / "tf_keras_mobilenet_train"
BIG = Path("/tmp/hloscope_bench_transformer.txt")  # what bench_parse.py generates

# Runs inside each tree: prints one JSON object of best times in seconds.
_PROBE = """
import gc, json, sys, time
import hloscope
from hloscope.backends import _jaxlib as jaxlib_adapter
from hloscope.analysis.fusions import fusion_report
xla = jaxlib_adapter.private_symbol("hlo_module_from_text")
def best(f, n):
    out = float("inf")
    for _ in range(n):
        gc.collect(); t = time.perf_counter(); f(); out = min(out, time.perf_counter() - t)
    return out
result = {}
for label, path in json.loads(sys.argv[1]).items():
    text = open(path).read()
    result[label + " parse"] = best(lambda: hloscope.parse(text), 7)
    result[label + " xla"] = best(lambda: xla(text), 7)
module = hloscope.parse(open(json.loads(sys.argv[1])["mobilenet"]).read())
result["mobilenet fusion_report"] = best(lambda: fusion_report(module), 5)
print(json.dumps(result))
"""


def _measure(tree: Path, inputs: dict[str, str]) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree), "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(inputs)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tree,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("old", type=Path, help="a checkout of the earlier revision")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    mobilenet = max(CORPUS.glob("*after_optimizations.txt"), key=lambda p: p.stat().st_size)
    if not BIG.is_file():
        sys.exit(f"{BIG} is missing: run benchmarks/bench_parse.py once to generate it")
    inputs = {"transformer": str(BIG), "mobilenet": str(mobilenet)}
    trees = {"old": args.old.resolve(), "new": ROOT}
    best: dict[str, dict[str, float]] = {name: {} for name in trees}
    for _ in range(args.rounds):
        for name, tree in trees.items():
            for key, seconds in _measure(tree, inputs).items():
                best[name][key] = min(best[name].get(key, float("inf")), seconds)
    for name in trees:
        b = best[name]
        print(f"{name}: {trees[name]}")
        for label in inputs:
            ratio = b[f"{label} xla"] / b[f"{label} parse"]
            print(
                f"  {label:12s} parse {b[f'{label} parse'] * 1e3:7.1f} ms  "
                f"XLA {b[f'{label} xla'] * 1e3:7.1f} ms  ratio XLA/hloscope {ratio:.2f}x"
            )
        print(f"  mobilenet    fusion_report {b['mobilenet fusion_report'] * 1e3:7.1f} ms")
    old, new = best["old"], best["new"]
    report = new["mobilenet fusion_report"] / old["mobilenet fusion_report"]
    print(f"fusion_report new/old time: {report:.2f} (<= 1.0: not slower)")


if __name__ == "__main__":
    main()

"""hloscope at XLA's scale: a module of tens or hundreds of MB, read and analysed end to end.

    python benchmarks/bench_scale.py [PATH ...] [--layers 48] [--repeat 3] [--only COMMAND]

Each PATH is an optimized HLO module; without one, the 48-layer transformer train step of
``samples/regenerate.py --big PATH --big-layers 48`` (54 MB, 402k instructions) is generated
once into /tmp. For each module it prints:

* ``hloscope.parse`` against XLA's own C++ parser (jaxlib's ``hlo_module_from_text``) in
  ``--repeat`` alternating rounds in this process: medians of the times and of the per-round
  ratio, in thread CPU and wall time (target >= 2.5x, issue 36);
* the wall time of ``hloscope summary``, ``fusions``, ``graph -o x.svg`` and ``diff A A`` in a
  fresh interpreter (start-up included; targets on the 54 MB module: 1, 2.5, 5 and 10 s, the
  first two from issue 36), with the peak resident memory of each as a multiple of the text
  size (targets on a 200 MB module: parse + fusions under 10x, diff under 20x).

Peak memory is the child's ``ru_maxrss`` (os.wait4), which includes the interpreter and its
libraries (about 60 MB): on small modules the ratios overstate what the module costs.
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import hloscope  # noqa: E402
from hloscope.backends import _jaxlib as jaxlib_adapter  # noqa: E402

TARGETS = {"summary": 1.0, "fusions": 2.5, "graph": 5.0, "diff A A": 10.0}


def generated(layers: int) -> Path:
    path = Path(f"/tmp/hloscope_bench_transformer_{layers}.txt")
    if not path.exists():
        print(f"generating {path} (samples/regenerate.py --big-layers {layers}) ...", flush=True)
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "samples" / "regenerate.py"),
                "--big",
                str(path),
                "--big-layers",
                str(layers),
            ],
            check=True,
        )
    return path


def run_child(args: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of ``python -m hloscope ARGS`` in a fresh process."""
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "hloscope", *args],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, usage.ru_maxrss * 1024


def bench_commands(path: Path, repeat: int, only: list[str] | None = None) -> None:
    """The commands, each in a fresh interpreter. Run before this process reads any module: a
    child's ``ru_maxrss`` starts from the parent's own peak (fork copies it), so the parent
    must still be small."""
    size = path.stat().st_size
    print(f"{path.name}: {size / 1e6:.1f} MB")
    with tempfile.TemporaryDirectory() as tmp:
        commands = {
            "summary": ["summary", str(path)],
            "fusions": ["fusions", str(path)],
            "graph": ["graph", str(path), "-o", str(Path(tmp) / "g.svg")],
            "diff A A": ["diff", str(path), str(path)],
        }
        for label, args in commands.items():
            if only and label.split()[0] not in only:
                continue
            seconds, peak = min(run_child(args) for _ in range(max(1, repeat // 2)))
            print(
                f"  {label:9s} {seconds:7.2f} s wall (target {TARGETS[label]:g} s on 54 MB), "
                f"peak {peak / 1e6:7.0f} MB = {peak / size:5.1f}x the text"
            )


def bench_parse(path: Path, repeat: int) -> None:
    """hloscope.parse against XLA's parser in alternating rounds (bench_parse.alternating):
    medians of thread CPU and wall times and of the per-round ratios."""
    from bench_parse import alternating  # this script's folder is on sys.path

    text = path.read_text()
    xla_parse = jaxlib_adapter.private_symbol("hlo_module_from_text")
    fns = {"hloscope": lambda: hloscope.parse(text), "xla": lambda: xla_parse(text)}
    m = alternating(fns, repeat)
    module = hloscope.parse(text)
    n = sum(len(c) for c in module.computations)
    del module
    gc.collect()
    (cpu, cpu_ratio), (wall, wall_ratio) = m["cpu"]["hloscope"], m["wall"]["hloscope"]
    print(
        f"{path.name}: {n} instructions, {repeat} alternating rounds; CPU: hloscope.parse "
        f"{cpu:.2f} s, XLA {m['cpu']['xla'][0]:.2f} s, ratio {cpu_ratio:.2f}x; wall: "
        f"{wall:.2f} s, {m['wall']['xla'][0]:.2f} s, ratio {wall_ratio:.2f}x "
        f"(target >= 2.5x, issue 36; load average {os.getloadavg()[0]:.1f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--layers", type=int, default=48)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--only",
        action="append",
        choices=["summary", "fusions", "graph", "diff", "parse"],
        help="measure only these (repeatable); the 200 MB module: --only fusions --only diff",
    )
    args = parser.parse_args()
    paths = args.paths or [generated(args.layers)]
    for path in paths:
        bench_commands(path, args.repeat, args.only)
    if not args.only or "parse" in args.only:
        for path in paths:
            bench_parse(path, args.repeat)


if __name__ == "__main__":
    main()

"""Does a CPU program's roofline position hold still across identical runs? (issue 30)

Runs ``hloscope bench TARGET --per-kernel --json`` RUNS times, each in a fresh process, all
sharing one new hloscope cache (the first run calibrates this CPU's peak; the later ones read
it, and any raise a run makes reaches the next), and prints each run's position (the program's
fraction of its roof), the peak it was judged against and the spread in points::

    PYTHONPATH=. python benchmarks/bench_cpu_position.py [TARGET] [--runs 5] [--isolated]

Before the fix, kernels timed alone raised the cached peak and the same program read 61%, 36%,
39%. The target must stay within 5 points.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

DEFAULT = "samples/hlo/transformer_train.after_optimizations.txt"


def one_run(target: str, cache: str, isolated: bool) -> dict:
    command = [sys.executable, "-m", "hloscope", "bench", target, "--per-kernel", "--json"]
    command += ["--budget", "3s"] + (["--isolated"] if isolated else [])
    env = {**os.environ, "HLOSCOPE_CACHE": cache, "JAX_PLATFORMS": "cpu"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", nargs="?", default=DEFAULT)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--isolated", action="store_true", help="time kernels alone")
    args = parser.parse_args()
    positions = []
    with tempfile.TemporaryDirectory(prefix="hloscope-position-") as cache:
        for run in range(args.runs):
            data = one_run(args.target, cache, args.isolated)
            roof = data["roofline"]
            position = 100 * roof["fraction"]
            positions.append(position)
            print(
                f"run {run + 1}: {position:5.1f}% of the {roof['bound']} roof, median "
                f"{data['median_s'] * 1e3:.3f} ms, peak {roof['peak_flops_per_s'] / 1e9:.1f} "
                f"GFLOP/s {roof['peak_bytes_per_s'] / 1e9:.1f} GB/s, "
                f"raised {len(roof['recalibrated'])}, pending {sorted(roof['pending'])}"
            )
    spread = max(positions) - min(positions)
    print(f"positions {', '.join(f'{p:.1f}%' for p in positions)}: spread {spread:.1f} points")
    sys.exit(0 if spread <= 5 else 1)


if __name__ == "__main__":
    main()

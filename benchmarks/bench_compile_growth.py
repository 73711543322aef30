"""How well ``compile-time --scale`` predicts a compile it has not seen (issue 37's fit).

The oracle is the compiler: each case compiles its program at three sizes, fits the growth of
the compile time through the first two and compiles the third to check the prediction. This
prints, per round, each case's prediction over the measured time of the check size (1.00 is
exact) and the fit chosen; then the median and worst ratio of each case.

The tests (``tests/test_compile_growth*.py``) assert what the fit must get right whatever the
load (a growing program is fitted as growing, a scan as flat, the prediction of the right kind:
within 50%, where a fit of the wrong kind errs by more). How close the prediction comes is a
measure of the machine as much as of the fit -- a burst of load on a shared 2-core machine
slows one size's compiles only -- so it is measured here, on a quiet machine, and written in
``benchmarks/RESULTS.md``: issue 37 asks for 25%.

    python benchmarks/bench_compile_growth.py [--rounds N (3)] [--tpu] [--cpu]

``--tpu`` runs the XLA:TPU cases (libtpu needed: offline compiles for ``tpu-v5e``), ``--cpu``
the local JAX backend's; default both. Every round compiles every size anew (``--refresh``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "compile_growth_programs.py"

#: (name, function, options): the cases of the tests, at the tests' sizes.
CPU_CASES = (
    (
        "cpu loop",
        "wide_loop_model",
        ("--scale", "layers", "--sizes", "50,100,200", "--repeat", "5"),
    ),
    ("cpu scan", "wide_scan_model", ("--scale", "ws:0", "--sizes", "25,200,400", "--repeat", "5")),
)
TPU_CASES = (
    (
        "tpu loop",
        "wide_loop_model",
        ("--device", "tpu-v5e", "--scale", "layers", "--sizes", "32,64,128", "--repeat", "2"),
    ),
    (
        "tpu scan",
        "wide_scan_model",
        ("--device", "tpu-v5e", "--scale", "layers", "--sizes", "4,32,64", "--repeat", "2"),
    ),
)


def _measure(function: str, options: tuple[str, ...]) -> dict:
    command = [sys.executable, "-m", "hloscope", "compile-time", f"{PROGRAMS}:{function}"]
    result = subprocess.run(
        [*command, *options, "--refresh", "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"{function}: {result.stderr.strip().splitlines()[-1:]}")
    return json.loads(result.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tpu", action="store_true", help="the XLA:TPU cases")
    parser.add_argument("--cpu", action="store_true", help="the local backend's cases")
    args = parser.parse_args()
    cases = (CPU_CASES if args.cpu or not args.tpu else ()) + (
        TPU_CASES if args.tpu or not args.cpu else ()
    )
    ratios: dict[str, list[float]] = {name: [] for name, _, _ in cases}
    for round_ in range(1, args.rounds + 1):
        for name, function, options in cases:
            total = _measure(function, options)["total"]
            check = total["check"]
            ratio = check["predicted_s"] / check["measured_s"]
            ratios[name].append(ratio)
            print(
                f"round {round_} {name:9} predicted/measured {ratio:.3f} "
                f"({total['fit']['kind']} fit, growth {total['growth']}, check at "
                f"{check['size']}: {check['measured_s']:.2f} s)",
                flush=True,
            )
    print("\ncase       median ratio  worst ratio  (issue 37: within 25%)")
    for name, found in ratios.items():
        worst = max(found, key=lambda ratio: abs(ratio - 1))
        print(f"{name:9}  {statistics.median(found):12.3f}  {worst:11.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How fast is ``hloscope fusions`` on a big module?

The module is the MobileNetV2 training step of the corpus (TensorFlow, 2.4 MB of optimized HLO,
~12,000 instructions, ~1,200 kernels). Two numbers, each the best of a few runs:

* ``hloscope fusions FILE`` as a user runs it: a fresh interpreter (subprocess), imports,
  parsing, the report and the rich table of every kernel. Target: < 2 s.
* :func:`hloscope.fusion_report` on a module that is already parsed (cost model, fused ops,
  sources and summary; caches cold: the module is re-parsed before each run). Target: < 0.5 s.

The CPU time of the subprocess is printed too: on a shared machine wall time includes waiting
for a core, CPU time does not.

    python benchmarks/bench_fusions.py [HLO_FILE] [--check]

``--check`` exits 1 when a target is missed.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "generated" / "tf_keras_mobilenet_train"
CLI_TARGET_S = 2.0
REPORT_TARGET_S = 0.5
RUNS = 3


def default_file() -> Path:
    found = sorted(CORPUS.glob("module_3782*cpu_after_optimizations.txt"))
    if not found:
        sys.exit(f"no MobileNetV2 module under {CORPUS}; pass an HLO file")
    return found[0]


def time_cli(path: Path) -> tuple[float, float]:
    """Best wall time and its CPU time (user + sys) of `hloscope fusions PATH` in a subprocess."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    best = (float("inf"), 0.0)
    for _ in range(RUNS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "hloscope.cli", "fusions", str(path)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            check=True,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = min(best, (wall, cpu))
    return best


def time_report(path: Path) -> tuple[float, float, int]:
    """Best time of fusion_report on a freshly parsed module, the parse time, kernel count."""
    sys.path.insert(0, str(ROOT))
    import hloscope

    best = float("inf")
    parse_best = float("inf")
    kernels = 0
    for _ in range(RUNS):
        start = time.perf_counter()
        module = hloscope.parse(path)
        parse_best = min(parse_best, time.perf_counter() - start)
        start = time.perf_counter()
        report = hloscope.fusion_report(module)
        best = min(best, time.perf_counter() - start)
        kernels = report.summary.kernel_count
    return best, parse_best, kernels


def main(argv: list[str]) -> int:
    args = [a for a in argv[1:] if not a.startswith("--")]
    path = Path(args[0]) if args else default_file()
    size = path.stat().st_size / 2**20
    report_s, parse_s, kernels = time_report(path)
    cli_s, cli_cpu = time_cli(path)
    ok_cli = cli_s < CLI_TARGET_S
    ok_report = report_s < REPORT_TARGET_S
    print(f"{path.name} ({size:.1f} MB, {kernels} kernels)")
    print(
        f"  hloscope fusions (subprocess): {cli_s:.2f} s wall, {cli_cpu:.2f} s CPU"
        f"  [target < {CLI_TARGET_S} s: {'ok' if ok_cli else 'MISSED'}]"
    )
    print(
        f"  fusion_report(parsed module):  {report_s:.3f} s"
        f"  [target < {REPORT_TARGET_S} s: {'ok' if ok_report else 'MISSED'}]"
    )
    print(f"  (parse alone: {parse_s:.3f} s)")
    if "--check" in argv and not (ok_cli and ok_report):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

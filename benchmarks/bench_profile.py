"""``hloscope profile`` of the TPU v5e LM step's trace with its module, against its peers.

The input is ``tests/data/profiles/tpu/lm_step``: a ``jax.profiler.trace`` of five steps of a
bf16 LM train step on a TPU v5e (a 2.1 MB ``*.xplane.pb``, a 269 KB ``*.trace.json.gz``) and
the module's optimized HLO (0.84 MB, 1,001 kernels run per step). Times, each the best of
``--repeat`` runs in this process:

* ``read_trace`` of the ``*.trace.json.gz``, against its peer: ``gzip`` + ``json.load`` of the
  same file (what any reader of the format must do first);
* ``read_trace`` of the ``*.xplane.pb``, against ``jax.profiler.ProfileData.from_file`` and a
  plain loop over every event (name, start, duration);
* ``op_profile`` of the trace joined to the parsed module (the join, the fusion report, the
  table), beside parsing the module;
* the whole command, ``hloscope profile TRACE TARGET --json``, in a fresh interpreter (start-up
  included), for each file: the target is under 2 s.

    python benchmarks/bench_profile.py [--repeat N]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hloscope.analysis.op_profile import op_profile, read_trace  # noqa: E402
from hloscope.capture.target import Target  # noqa: E402
from hloscope.profile import TraceFormat  # noqa: E402

CASE = ROOT / "tests" / "data" / "profiles" / "tpu" / "lm_step"


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _peer_xplane(path: Path) -> int:
    from jax.profiler import ProfileData

    count = 0
    for plane in ProfileData.from_file(str(path)).planes:
        for line in plane.lines:
            for event in line.events:
                _ = (event.name, event.start_ns, event.duration_ns)
                count += 1
    return count


def _command(*args: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "hloscope", "profile", *args, "--json"],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    chrome = next(CASE.rglob("*.trace.json.gz"))
    xplane = next(CASE.rglob("*.xplane.pb"))
    dump = CASE / "dump"
    print(f"trace.json.gz {chrome.stat().st_size / 1e3:.0f} KB, xplane.pb "
          f"{xplane.stat().st_size / 1e6:.2f} MB")  # fmt: skip

    ours = best(lambda: read_trace(chrome), repeat)
    peer = best(lambda: json.loads(gzip.decompress(chrome.read_bytes())), repeat)
    print(f"read_trace(json.gz) {ours * 1e3:.1f} ms | gzip+json.load {peer * 1e3:.1f} ms | "
          f"ratio {ours / peer:.2f}x")  # fmt: skip

    ours = best(lambda: read_trace(xplane, TraceFormat.XPLANE), repeat)
    peer = best(lambda: _peer_xplane(xplane), repeat)
    print(f"read_trace(xplane) {ours * 1e3:.1f} ms | ProfileData + loop {peer * 1e3:.1f} ms | "
          f"ratio {ours / peer:.2f}x")  # fmt: skip

    parse = best(lambda: Target.resolve(str(dump)).choose_module("after", None), repeat)
    module = Target.resolve(str(dump)).choose_module("after", None).module
    trace = read_trace(chrome)
    join = best(lambda: op_profile(trace, module), repeat)
    print(f"op_profile(trace, module) {join * 1e3:.1f} ms | parsing the module "
          f"{parse * 1e3:.1f} ms | ratio {join / parse:.2f}x")  # fmt: skip

    for path in (chrome, xplane):
        wall = min(_command(str(path), str(dump)) for _ in range(max(1, repeat // 2)))
        print(f"hloscope profile {path.name} dump --json: {wall:.2f} s wall (target < 2 s)")


if __name__ == "__main__":
    main()

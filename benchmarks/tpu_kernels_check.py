"""``bench --per-kernel`` on a TPU chip, kernel by kernel against the profiler (issue 35).

Run on a TPU host from the work tree (``../shared/docs/tpu.md`` section 7)::

    PYTHONPATH=.:$PYTHONPATH python3 benchmarks/tpu_kernels_check.py [OUT]

For the six programs of ``samples/tpu_kernel_programs.py`` (an attention train step, an
embedding gather and scatter-add, a scanned RNN, a top-k router, an 8192^3 bf16 matmul, a 1 GiB
elementwise op), in one process (the chip takes one at a time):

* **per kernel**: hloscope's ``bench(fn, *args, per_kernel=True)`` time of every kernel against
  the same kernel's time in an independent trace (another run) read here with
  ``jax.profiler.ProfileData`` alone (the ``XLA Ops`` events of that instruction, summed, per
  execution of the module on the ``XLA Modules`` line). Kernels of 1% of the device time or
  more must agree within 1%; the largest difference of any share is printed too. And
  ``hloscope profile`` of that same trace, kernel by kernel, against the same reading;
* **roofs**: no kernel of any share above 100% of a roof (an async ``*-start``/``*-done`` has
  no roof at all: its transfer runs under other kernels);
* **bounds**: every kernel with FLOPs or bytes that has a measurable time has a bound.

* **profile**: ``hloscope profile`` of that independent trace with the module XLA dumped
  (``XLA_FLAGS=--xla_dump_to`` is set here before jax loads): the same steps, no kernel above
  a roof (FLOPs and HBM bytes per second against the v5e's 197 TFLOP/s and 819 GB/s), async
  ops without a bound.

It prints a table and writes ``OUT/tpu_kernels_check.json``. ``HLOSCOPE_CHECK_PROGRAMS=matmul``
runs fewer.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
import traceback
from collections import defaultdict
from pathlib import Path
from typing import Any

PROGRAMS = tuple(
    os.environ.get(
        "HLOSCOPE_CHECK_PROGRAMS",
        "attention_step,embedding_step,rnn_scan,topk_router,matmul,elementwise,softmax_attention",
    ).split(",")
)
TRACE_STEPS = 10
PEAK_FLOPS, PEAK_BYTES = 197e12, 819e9  # TPU v5e (bf16), vendor figures
BUDGET_S = 2.0
KERNEL_TOLERANCE = 0.01
SHARE_CHECKED = 0.01
_ASYNC = re.compile(r"-(start|done)(\.\d+)?$")
_INSTRUCTION = re.compile(r"^%?([^\s=]+)")


def _out_dir() -> Path:
    given = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", "tpu_kernels_check")
    out = Path(given)
    out.mkdir(parents=True, exist_ok=True)
    return out


def profiler_kernels(step: Any, folder: Path, module: str) -> dict[str, float]:
    """Each instruction's device time per execution of ``module``, from a trace of ``step``
    read with jax's ``ProfileData`` alone."""
    import jax
    from jax.profiler import ProfileData

    jax.block_until_ready(step())
    with jax.profiler.trace(str(folder)):
        for _ in range(TRACE_STEPS):
            jax.block_until_ready(step())
    data = ProfileData.from_file(str(next(folder.rglob("*.xplane.pb"))))
    times: dict[str, float] = defaultdict(float)
    runs = 0
    for plane in data.planes:
        if not plane.name.startswith("/device:TPU:0"):
            continue
        for line in plane.lines:
            if line.name == "XLA Modules":
                runs += sum(1 for e in line.events if str(e.name).split("(")[0] == module)
            elif line.name == "XLA Ops":
                for event in line.events:
                    found = _INSTRUCTION.match(str(event.name))
                    if found:  # picoseconds where the event has them, as XProf reads it
                        picoseconds = dict(event.stats).get("device_duration_ps")
                        seconds = picoseconds * 1e-12 if picoseconds else event.duration_ns * 1e-9
                        times[found.group(1)] += seconds
    return {name: seconds / max(runs, 1) for name, seconds in times.items()}


def check_program(name: str, programs: Any, out: Path) -> dict[str, Any]:
    from hloscope.bench.api import bench

    fn = getattr(programs, name)
    args = programs.example_args()[name]()
    from tpu_bench_check import _step  # a donating step fed its own outputs back

    donated = name == "attention_step"
    theirs = profiler_kernels(_step(fn, args, donated), out / "traces" / name, f"jit_{name}")
    started = time.perf_counter()
    result = bench(fn, *args, per_kernel=True, budget=BUDGET_S, profile_steps=TRACE_STEPS)
    took = time.perf_counter() - started
    data = result.to_dict()
    kernels = data["kernels"]
    device_s = sum(k["time_s"] or 0.0 for k in kernels)
    compared, worst_checked, worst_any, missing = [], 0.0, 0.0, []
    for kernel in kernels:
        ours = kernel["time_s"]
        if not ours:
            continue
        other = theirs.get(kernel["name"])
        if other is None:
            missing.append({"name": kernel["name"], "share": ours / device_s if device_s else 0})
            continue
        diff = ours / other - 1 if other else float("inf")
        share = ours / device_s if device_s else 0.0
        compared.append({"name": kernel["name"], "share": share, "ours": ours, "profiler": other})
        worst_any = max(worst_any, abs(diff))
        if share >= SHARE_CHECKED:
            worst_checked = max(worst_checked, abs(diff))
    above = [
        {"name": k["name"], "fraction": k["roofline_fraction"], "share": k["share"]}
        for k in kernels
        if (k["roofline_fraction"] or 0) > 1.0
    ]
    async_with_roof = [
        k["name"]
        for k in kernels
        if _ASYNC.search(k["name"]) and (k["roofline_fraction"] is not None or k["bound"])
    ]
    unbound = [
        k["name"]
        for k in kernels
        if k["time_s"]
        and (k["flops"] or k["bytes"])
        and not k["bound"]
        and not _ASYNC.search(k["name"])
    ]
    row = {
        "program": name,
        "median_s": result.median_s,
        "kernels": len(kernels),
        "device_s": device_s,
        "compared": len(compared),
        "worst_checked": worst_checked,
        "worst_any": worst_any,
        "not_in_profiler": missing,
        "above_roof": above,
        "async_with_roof": async_with_roof,
        "without_bound": unbound,
        "top": sorted(compared, key=lambda c: -c["share"])[:5],
        "bench_s": took,
    }
    row["profile"] = profile_check(out / "traces" / name, out / "dump", f"jit_{name}", theirs)
    row["checks"] = {
        "kernels >= 1% within 1% of the profiler": bool(compared)
        and worst_checked <= KERNEL_TOLERANCE
        and all(m["share"] < SHARE_CHECKED for m in missing),
        "no kernel above a roof": not above,
        "no async op with a roof": not async_with_roof,
        "every costed kernel has a bound": not unbound,
        "profile: no kernel above a roof": row["profile"].get("above") == [],
        "profile: async ops without a bound": row["profile"].get("async_bound") == [],
        "profile: every kernel within 1% of the profiler, same trace": row["profile"].get(
            "worst_same_trace", 1.0
        )
        <= KERNEL_TOLERANCE,
    }
    return row


def profile_check(trace: Path, dump: Path, module: str, theirs: dict[str, float]) -> dict[str, Any]:
    """``hloscope profile TRACE DUMP --module MODULE --json``: each kernel's time against the
    profiler's reading of the same trace (``theirs``; a while's event encloses its body, so it
    is left out), and each kernel's position under the v5e's roofs worked out here from its
    FLOPs, HBM bytes and time."""
    from click.testing import CliRunner

    from hloscope.cli import cli

    args = ["profile", str(trace), str(dump), "--module", module, "--xplane", "--json"]
    result = CliRunner().invoke(cli, args)
    if result.exit_code != 0:
        return {"error": result.output[-800:]}
    data = json.loads(result.stdout)
    above, async_bound, worst_same_trace = [], [], 0.0
    for kernel in data["kernels"]:
        time_s = kernel.get("time_s") or 0.0
        other = theirs.get(kernel["name"])
        if other and kernel.get("kind") != "while":
            worst_same_trace = max(worst_same_trace, abs(time_s / other - 1))
        if kernel.get("async"):
            if kernel.get("bound"):
                async_bound.append(kernel["name"])
            continue
        if time_s <= 0:
            continue
        position = max(
            (kernel.get("flops") or 0) / time_s / PEAK_FLOPS,
            (kernel.get("hbm_bytes") or 0) / time_s / PEAK_BYTES,
        )
        if position > 1.0:
            above.append({"name": kernel["name"], "position": position, "share": kernel["share"]})
    return {
        "steps": data.get("steps"),
        "device_time_s": data.get("device_time_s"),
        "kernels": len(data["kernels"]),
        "async": len(data.get("async") or []),
        "step_times": (data.get("step_times") or [])[:3],
        "above": above,
        "async_bound": async_bound,
        "worst_same_trace": worst_same_trace,
    }


def _table(rows: list[dict[str, Any]]) -> None:
    head = f"{'program':17} {'kernels':>7} {'device':>10} {'bench>=1%':>9} {'bench':>7}"
    print(head + f" {'profile':>8}  checks")
    for r in rows:
        if "error" in r:
            print(f"{r['program']:17} ERROR {r['error']}")
            continue
        failed = [k for k, v in r["checks"].items() if not v]
        print(
            f"{r['program']:17} {r['kernels']:7d} {r['device_s'] * 1e3:8.3f}ms"
            f" {r['worst_checked']:9.3%} {min(r['worst_any'], 9.99):7.2%}"
            f" {r['profile'].get('worst_same_trace', float('nan')):8.4%}"
            f"  {'ok' if not failed else 'FAILED: ' + ', '.join(failed)}"
        )


def main() -> None:
    out = _out_dir()
    dump = out / "dump"
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_dump_to={dump}".strip()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "samples"))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import jax
    import tpu_kernel_programs as programs  # noqa: E402

    started = time.perf_counter()
    print(f"devices: {jax.devices()}", flush=True)
    rows = []
    for name in PROGRAMS:
        try:
            rows.append(check_program(name, programs, out))
        except Exception as error:  # noqa: BLE001 - one program's failure is a row
            traceback.print_exc()
            rows.append({"program": name, "error": f"{type(error).__name__}: {error}"[:500]})
        print(f"{name}: done at {time.perf_counter() - started:.0f} s", flush=True)
    _table(rows)
    result = {
        "device_kind": jax.devices()[0].device_kind,
        "jax": jax.__version__,
        "programs": rows,
        "seconds": time.perf_counter() - started,
    }
    (out / "tpu_kernels_check.json").write_text(json.dumps(result, indent=2, default=str))
    print(f"wrote {out / 'tpu_kernels_check.json'} in {result['seconds']:.0f} s")


if __name__ == "__main__":
    main()

"""``hloscope bench`` on a TPU chip, checked against the chip itself (issue 30).

Run on a TPU host from the work tree (``../shared/docs/tpu.md`` section 7; keep the host's own
``PYTHONPATH`` if it sets one, that is where its jax may live)::

    PYTHONPATH=.:$PYTHONPATH python3 benchmarks/tpu_bench_check.py [OUT]

(``OUT`` defaults to ``$OUT``, else ``./tpu_bench_check``.) For three programs of
``samples/tpu_programs.py`` (``matmul``: a large bf16 product, ``elementwise``: a large f32
elementwise op, ``lm_step``: the LM training step), in one process (the chip takes one at a
time, and opening it costs ~15 s):

* **median**: hloscope's ``bench`` against a plain ``block_until_ready`` loop (within 2%);
* **kernels**: the per-kernel sum bench reads from its trace against the device time of an
  independent trace read here with ``jax.profiler.ProfileData`` alone (the union of the
  ``XLA Ops`` line's busy intervals per step; within 1%), and against the wall time;
* **roofline**: the matmul compute-bound at 80% or more of the MXU peak, the elementwise op
  memory-bound near 819 GB/s, nothing above 100% of a roof without a note;
* ``report --bench`` of the LM step's dump (XLA_FLAGS is set here before jax loads) written to
  ``OUT/report.html``, with its bench section and roofline chart; ``bench -o`` charts as
  ``OUT/<program>.roofline.svg``.

It prints a compact table and writes ``OUT/tpu_bench_check.json``. hloscope's pure-Python
dependencies the host may lack (rich, pandas...) are only needed by what is not run here. Total
run time on a v5e: a few minutes (budgets below).
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

# HLOSCOPE_CHECK_PROGRAMS=elementwise runs fewer (a smoke test off the chip).
PROGRAMS = tuple(os.environ.get("HLOSCOPE_CHECK_PROGRAMS", "matmul,elementwise,lm_step").split(","))
BUDGET_S = 3.0  # hloscope's timed runs per program
PLAIN_RUNS = 50
TRACE_STEPS = 5
MEDIAN_TOLERANCE = 0.02
KERNEL_TOLERANCE = 0.01


def _out_dir() -> Path:
    given = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", "tpu_bench_check")
    out = Path(given)
    out.mkdir(parents=True, exist_ok=True)
    return out


def _step(fn: Any, args: tuple[Any, ...], donated: bool) -> Any:
    """A zero-argument step; a donating function is fed its own last output back."""
    import jax

    state = {"args": args}
    if donated:
        state["args"] = (jax.tree_util.tree_map(lambda a: a.copy(), args[0]), *args[1:])

    def step() -> Any:
        out = fn(*state["args"])
        if donated:
            state["args"] = (out[1], *state["args"][1:])
        return out

    return step


def plain_median(step: Any, runs: int = PLAIN_RUNS) -> float:
    import jax
    import numpy as np

    for _ in range(5):
        jax.block_until_ready(step())
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        jax.block_until_ready(step())
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def device_time(step: Any, folder: Path, steps: int = TRACE_STEPS) -> dict[str, float]:
    """The device's busy time per step on its ``XLA Ops`` line and the module runs' time per
    step on ``XLA Modules``, from a trace read with jax alone (no hloscope)."""
    import jax
    from jax.profiler import ProfileData

    jax.block_until_ready(step())
    with jax.profiler.trace(str(folder)):
        for _ in range(steps):
            jax.block_until_ready(step())
    path = next(folder.rglob("*.xplane.pb"))
    data = ProfileData.from_file(str(path))
    spans, modules = [], 0.0
    for plane in data.planes:
        if not plane.name.startswith("/device:TPU:0"):
            continue
        for line in plane.lines:
            if line.name == "XLA Ops":
                spans += [(e.start_ns, e.start_ns + e.duration_ns) for e in line.events]
            elif line.name == "XLA Modules":
                modules += sum(e.duration_ns for e in line.events)
    busy, end = 0.0, float("-inf")
    for start, stop in sorted(spans):
        if stop > end:
            busy += stop - max(start, end)
            end = stop
    return {"busy_s": busy * 1e-9 / steps, "modules_s": modules * 1e-9 / steps}


def check_program(name: str, programs: Any, out: Path) -> dict[str, Any]:
    from hloscope.bench.api import bench

    fn = getattr(programs, name)
    args = programs.example_args()[name]()
    donated = name.startswith("lm_step")
    plain = plain_median(_step(fn, args, donated))
    device = device_time(_step(fn, args, donated), out / "traces" / name)
    started = time.perf_counter()
    result = bench(fn, *args, per_kernel=True, budget=BUDGET_S, profile_steps=TRACE_STEPS)
    took = time.perf_counter() - started
    data = result.to_dict()
    roof = data["roofline"]
    per_kernel = data["per_kernel"] or {}
    kernels_s = per_kernel.get("device_time_s") or 0.0
    above = [k["name"] for k in data["kernels"] if (k["roofline_fraction"] or 0) > 1]
    row = {
        "program": name,
        "hloscope_median_s": result.median_s,
        "plain_median_s": plain,
        "median_vs_plain": result.median_s / plain - 1,
        "kernels_sum_s": kernels_s,
        "device_busy_s": device["busy_s"],
        "module_runs_s": device["modules_s"],
        "kernels_vs_device": kernels_s / device["busy_s"] - 1 if device["busy_s"] else None,
        "kernels_of_wall": kernels_s / result.median_s,
        "kernels": len(data["kernels"]),
        "bound": roof["bound"],
        "position": roof["fraction"],
        "flops_per_s": data["flops_per_s"],
        "bytes_per_s": data["bytes_per_s"],
        "top_kernel": data["kernels"][0] if data["kernels"] else None,
        "kernels_above_roof": above,
        "notes": result.notes,
        "bench_s": took,
    }
    svg = _chart(result)
    if svg:
        (out / f"{name}.roofline.svg").write_text(svg)
    row["checks"] = _checks(name, row)
    return row


def _chart(result: Any) -> str | None:
    from hloscope.render.roofline_svg import bench_roofline_svg

    return bench_roofline_svg(result.to_dict(), result.kernel_rows())


def _checks(name: str, row: dict[str, Any]) -> dict[str, bool]:
    checks = {
        "median within 2%": abs(row["median_vs_plain"]) <= MEDIAN_TOLERANCE,
        "kernels within 1% of device time": row["kernels_vs_device"] is not None
        and abs(row["kernels_vs_device"]) <= KERNEL_TOLERANCE,
        "kernels within wall time": row["kernels_of_wall"] <= 1.0,
    }
    noted = any("above 100% of a roof" in n or "above the" in n for n in row["notes"])
    checks["nothing above 100% unsaid"] = (row["position"] or 0) <= 1.0 and (
        not row["kernels_above_roof"] or noted
    )
    if name == "matmul":
        checks["compute-bound >= 80%"] = row["bound"] == "compute" and row["position"] >= 0.8
    if name == "elementwise":
        checks["memory-bound near 819 GB/s"] = (
            row["bound"] == "memory" and row["position"] >= 0.7 and row["bytes_per_s"] > 0.6e12
        )
    return checks


def write_report(out: Path, dump: Path, program: str) -> dict[str, Any]:
    """``hloscope report DUMP --bench --module jit_PROGRAM`` into ``out/report.html``."""
    from hloscope.capture.target import Target
    from hloscope.reporting import build_report

    started = time.perf_counter()
    report = build_report(Target.resolve(str(dump)), module=f"jit_{program}", bench=True, graphs=0)
    path = report.write(out / "report.html")
    html = path.read_text()
    return {
        "path": str(path),
        "has_bench": report.bench is not None,
        "has_chart": 'class="hs-svg hs-roofline"' in html,
        "notes": report.notes,
        "seconds": time.perf_counter() - started,
    }


def _table(rows: list[dict[str, Any]]) -> None:
    head = f"{'program':12} {'bench':>9} {'plain':>9} {'diff':>6} {'kernels':>9} {'device':>9}"
    print(head + f" {'k/dev':>6} {'k/wall':>6} {'bound':>8} {'pos':>5}  checks")
    for r in rows:
        if "error" in r:
            print(f"{r['program']:12} ERROR {r['error']}")
            continue
        ok = all(r["checks"].values())
        failed = [k for k, v in r["checks"].items() if not v]
        print(
            f"{r['program']:12} {r['hloscope_median_s'] * 1e3:8.3f}m"
            f" {r['plain_median_s'] * 1e3:8.3f}m"
            f" {r['median_vs_plain']:+6.1%} {r['kernels_sum_s'] * 1e3:8.3f}m"
            f" {r['device_busy_s'] * 1e3:8.3f}m {r['kernels_vs_device'] or 0:+6.2%}"
            f" {r['kernels_of_wall']:6.1%} {r['bound'] or '-':>8} {r['position'] or 0:5.0%}"
            f"  {'ok' if ok else 'FAILED: ' + ', '.join(failed)}"
        )


def main() -> None:
    out = _out_dir()
    dump = out / "dump"
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_dump_to={dump}".strip()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "samples"))
    import jax
    import tpu_programs as programs  # noqa: E402 - after XLA_FLAGS

    started = time.perf_counter()
    print(f"devices: {jax.devices()}", flush=True)
    rows = []
    for name in PROGRAMS:
        try:
            rows.append(check_program(name, programs, out))
        except Exception as error:  # noqa: BLE001 - one program's failure is a row, not the end
            traceback.print_exc()
            rows.append({"program": name, "error": f"{type(error).__name__}: {error}"[:500]})
        print(f"{name}: done at {time.perf_counter() - started:.0f} s", flush=True)
    try:
        report = write_report(out, dump, PROGRAMS[-1])
    except Exception as error:  # noqa: BLE001
        traceback.print_exc()
        report = {"error": f"{type(error).__name__}: {error}"[:500]}
    _table(rows)
    print(f"report: {report}")
    result = {
        "device_kind": jax.devices()[0].device_kind,
        "jax": jax.__version__,
        "programs": rows,
        "report": report,
        "seconds": time.perf_counter() - started,
    }
    (out / "tpu_bench_check.json").write_text(json.dumps(result, indent=2, default=str))
    print(f"wrote {out / 'tpu_bench_check.json'} in {result['seconds']:.0f} s")


if __name__ == "__main__":
    main()

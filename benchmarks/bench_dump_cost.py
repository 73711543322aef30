"""What XLA's dump costs inside an XLA:TPU ``compile()``: bare, old dump options, new ones.

A capture compiles with per-compile dump options (:mod:`hloscope.backends.dump_options`): XLA
then prints the module several times, its buffer assignment, live range and pass timestamps,
and libtpu its own files, all inside ``lowered.compile(...)``. This measures that cost alone,
without hloscope's own work around the compile: one process compiles one program for a TPU v5e
chip (``v5e:1x1``, offline), round after round, each round once

* **bare**: ``lowered.compile()``, no dump;
* **old**: with the options hloscope used before (:data:`OLD_OPTIONS`, commit 26b638c);
* **new**: with :func:`~hloscope.backends.dump_options.compile_dumping`, as a capture does now;
* with ``--minimal``, **minimal** too: the new options without the live range and values
  (``xla_dump_buffer_assignment_analysis``) and the pass timestamps
  (``xla_dump_module_metadata``): the most a command that reads neither could save;

the order rotating round by round, each compile of a fresh lowering after ``jax.clear_caches()``
(JAX otherwise returns the executable it compiled before). Timed: the process's CPU time
(``time.process_time()``: every thread of XLA's compile) and the wall time around the call.
On a machine shared with other work the CPU time is the steadier figure; on a quiet host both.

Printed per round: each variant's CPU and wall seconds and its ratio to that round's bare
compile; at the end, per variant, the best and median of N and the median per-round ratio.

    python benchmarks/bench_dump_cost.py [--rounds N (4)] [--minimal]
        [--target SCRIPT.py:FUNCTION ...] (default: samples/tpu_programs.py:lm_step and
        samples/tpu_programs.py:conv_step, each in a process of its own)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TARGETS = ("samples/tpu_programs.py:lm_step", "samples/tpu_programs.py:conv_step")

#: hloscope's capture options before this change (jax_compile._dump_options at 26b638c).
OLD_OPTIONS: dict[str, Any] = {
    "xla_dump_hlo_as_text": True,
    "xla_dump_hlo_as_long_text": True,
    "xla_dump_hlo_module_re": ".*",
    "xla_dump_max_hlo_modules": -1,
    "xla_dump_disable_metadata": False,
    "xla_dump_hlo_as_proto": False,
    "xla_dump_hlo_as_dot": False,
    "xla_dump_hlo_as_html": False,
    "xla_dump_hlo_as_url": False,
    "xla_dump_hlo_snapshots": False,
    "xla_dump_include_timestamp": False,
    "xla_dump_hlo_pass_re": "",
    "xla_dump_module_metadata": True,
}
MINIMAL = {"xla_dump_buffer_assignment_analysis": False, "xla_dump_module_metadata": False}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--target", action="append", help="SCRIPT.py:FUNCTION (repeatable)")
    parser.add_argument("--minimal", action="store_true", help="also the least a dump can be")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # one target, in this process
    options = parser.parse_args()
    if options.child:
        _measure(options.child, options.rounds, options.minimal)
        return
    for target in options.target or TARGETS:
        script, name = target.rsplit(":", 1)
        line = [sys.executable, __file__, "--child", f"{(ROOT / script).resolve()}:{name}"]
        line += ["--rounds", str(options.rounds), *(["--minimal"] if options.minimal else [])]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *_pythonpath()])}
        print(f"== {target}", flush=True)
        done = subprocess.run(line, env=env, check=False)
        if done.returncode != 0:
            sys.exit(f"{target}: the measuring process failed ({done.returncode})")


def _pythonpath() -> list[str]:
    return [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]


def _measure(target: str, rounds: int, minimal: bool) -> None:
    os.environ.update(
        TPU_ACCELERATOR_TYPE="v5litepod-4",
        TPU_WORKER_HOSTNAMES="localhost",
        TPU_SKIP_MDS_QUERY="1",
        ALLOW_MULTIPLE_LIBTPU_LOAD="1",
        JAX_PLATFORMS="cpu",
    )
    import jax

    lower = _lowering(target)
    compilers = _compilers(minimal)
    _compile_once(lower(), compilers["bare"])  # libtpu's first compile pays for its start
    labels = list(compilers)
    cpu: dict[str, list[float]] = {label: [] for label in labels}
    wall: dict[str, list[float]] = {label: [] for label in labels}
    for round_ in range(rounds):
        shift = round_ % len(labels)
        for label in labels[shift:] + labels[:shift]:
            jax.clear_caches()
            seconds, wall_seconds, files = _compile_once(lower(), compilers[label])
            cpu[label].append(seconds)
            wall[label].append(wall_seconds)
            if round_ == 0 and files:
                print(f"  {label}: XLA wrote {files[0]} files, {files[1] / 1e6:.2f} MB")
        print(_round_line(round_ + 1, labels, cpu, wall), flush=True)
    _summary(labels, cpu, wall)
    print(json.dumps({"target": target, "cpu_s": cpu, "wall_s": wall}))


def _lowering(target: str) -> Callable[[], Any]:
    """A function that lowers ``target`` afresh for one v5e chip (as a capture lowers it)."""
    import jax
    from jax.experimental import topologies

    script, name = target.rsplit(":", 1)
    sys.path.insert(0, os.path.dirname(script))
    spec = importlib.util.spec_from_file_location("program", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = module.example_args()[name]()
    devices = topologies.get_topology_desc(
        platform="tpu", topology_name="v5e:1x1", chips_per_host_bounds=(1, 1, 1)
    ).devices
    one = jax.sharding.SingleDeviceSharding(devices[0])
    specs = jax.tree_util.tree_map(
        lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=one), args
    )
    function = getattr(module, name)
    jitted = function if hasattr(function, "lower") else jax.jit(function)
    return lambda: jitted.lower(*specs)


def _compilers(minimal: bool) -> dict[str, Callable[[Any, str], Any]]:
    """Each variant: a function of the lowering and a fresh dump folder that compiles it."""
    from hloscope.backends.dump_options import capture_dump_options, compile_dumping

    compilers: dict[str, Callable[[Any, str], Any]] = {
        "bare": lambda lowered, folder: lowered.compile(),
        "old": lambda lowered, folder: lowered.compile(
            compiler_options={"xla_dump_to": folder, **OLD_OPTIONS}
        ),
        "new": lambda lowered, folder: compile_dumping(lowered, folder, None),
    }
    if minimal:
        compilers["minimal"] = lambda lowered, folder: lowered.compile(
            compiler_options={**capture_dump_options(folder, None), **MINIMAL}
        )
    return compilers


def _compile_once(
    lowered: Any, compile_: Callable[[Any, str], Any]
) -> tuple[float, float, tuple[int, int] | None]:
    """CPU and wall seconds of one compile, and the files and bytes its dump holds."""
    from hloscope.backends import _jaxlib

    folder = tempfile.mkdtemp(prefix="hloscope-dump-cost-")
    try:
        with _jaxlib.private_compile_dumps(folder):  # as a capture compiles
            cpu, start = time.process_time(), time.perf_counter()
            compile_(lowered, folder)
            wall = time.perf_counter() - start
            cpu = time.process_time() - cpu
        sizes = [
            os.path.getsize(os.path.join(d, f)) for d, _, names in os.walk(folder) for f in names
        ]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return cpu, wall, (len(sizes), sum(sizes)) if sizes else None


def _round_line(
    round_: int, labels: list[str], cpu: dict[str, list[float]], wall: dict[str, list[float]]
) -> str:
    bare_cpu, bare_wall = cpu["bare"][-1], wall["bare"][-1]
    parts = [f"round {round_}: bare CPU {bare_cpu:.2f} s, wall {bare_wall:.2f} s"]
    for label in labels[1:]:
        parts.append(
            f"{label} CPU {cpu[label][-1]:.2f} s ({cpu[label][-1] / bare_cpu - 1:+.1%}), "
            f"wall {wall[label][-1]:.2f} s ({wall[label][-1] / bare_wall - 1:+.1%})"
        )
    return "; ".join(parts)


def _summary(labels: list[str], cpu: dict[str, list[float]], wall: dict[str, list[float]]) -> None:
    median = statistics.median
    print(f"{'':10}{'CPU best':>10}{'median':>10}{'wall best':>11}{'median':>10}   against bare")
    for label in labels:
        line = (
            f"{label:10}{min(cpu[label]):9.2f}s{median(cpu[label]):9.2f}s"
            f"{min(wall[label]):10.2f}s{median(wall[label]):9.2f}s"
        )
        if label != "bare":
            per_round_cpu = [c / b - 1 for c, b in zip(cpu[label], cpu["bare"], strict=True)]
            per_round_wall = [w / b - 1 for w, b in zip(wall[label], wall["bare"], strict=True)]
            line += (
                f"   CPU best {min(cpu[label]) / min(cpu['bare']) - 1:+.1%}, median round "
                f"{median(per_round_cpu):+.1%}; wall best "
                f"{min(wall[label]) / min(wall['bare']) - 1:+.1%}, median round "
                f"{median(per_round_wall):+.1%}"
            )
        print(line)


if __name__ == "__main__":
    main()

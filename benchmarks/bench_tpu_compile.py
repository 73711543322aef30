"""What hloscope adds around an XLA:TPU compile, cold and cached (issue 29's budget).

Measured the way a user runs it, fresh processes each round, the order alternating:

* **bare**: ``python -c`` doing what a user would by hand: set libtpu's environment, import
  jax, build the program's example arguments, describe the ``v5e:1x1`` topology, place the
  arguments there and ``jax.jit(f).lower(...).compile()``;
* **hloscope cold**: ``hloscope memory SCRIPT.py:FUNCTION --device tpu-v5e --refresh`` (the
  same compile in its capture child, plus the dump, the memory analysis and the text);
* **hloscope cached**: the same command again without ``--refresh``: it reads the cache.

``--command capture`` times ``hloscope capture SCRIPT.py:FUNCTION --device tpu-v5e -o DIR``
instead (a fresh cache and folder each run): the compile and what hloscope keeps of it, without
the memory analysis ``memory`` then does, which a bare compile does not.

Printed: the medians, hloscope's own time around the compile (cold minus bare) as a share of
the compile itself (the bare run's ``lowered.compile()``; budget: under 5%) and of the whole
bare run, and the cached command (budget: under 1 s).

Each run's **CPU time** is measured too, of its whole process tree (user plus system, the
capture's child included: this process is a child subreaper on Linux, so a child that outlives
its parent is reaped, and counted, here). On a machine shared with other work the wall times
of a 20 s compile spread by more than the share measured; the CPU seconds a run spends depend
far less on what else runs, so hloscope's own CPU time (cold minus bare) is the steadier figure
there.

hloscope is timed as installed: with its bytecode compiled. On a machine that writes none
(``PYTHONDONTWRITEBYTECODE``, a read-only tree), run ``python -m compileall -q hloscope``
first, as ``pip install`` does; otherwise every hloscope process there compiles its own
modules from source, which no installed copy does.

    python benchmarks/bench_tpu_compile.py [--rounds N (3)] [--target SCRIPT.py:FUNCTION]
        [--command memory|capture]
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BARE = """
import os, sys, time, importlib.util
os.environ.update(TPU_ACCELERATOR_TYPE="v5litepod-4", TPU_WORKER_HOSTNAMES="localhost",
                  TPU_SKIP_MDS_QUERY="1", ALLOW_MULTIPLE_LIBTPU_LOAD="1", JAX_PLATFORMS="cpu")
import jax
from jax.experimental import topologies
script, name = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
spec = importlib.util.spec_from_file_location("program", script)
module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)
args = module.example_args()[name]()
devices = topologies.get_topology_desc(platform="tpu", topology_name="v5e:1x1",
                                       chips_per_host_bounds=(1, 1, 1)).devices
one = jax.sharding.SingleDeviceSharding(devices[0])
specs = jax.tree_util.tree_map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=one), args)
lowered = getattr(module, name).lower(*specs)
start = time.perf_counter()
lowered.compile()
print(f"compile_s {time.perf_counter() - start:.3f}")
"""


def _hloscope() -> list[str]:
    found = shutil.which("hloscope")
    return [found] if found else [sys.executable, "-m", "hloscope"]


def _become_subreaper() -> None:
    """Adopt orphaned descendants (Linux ``PR_SET_CHILD_SUBREAPER``), so that their CPU time is
    counted in ours when reaped; elsewhere nothing changes (a child that outlives its parent is
    then not counted)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)


def _reap_orphans() -> None:
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """The command's wall time, the CPU time of its whole process tree, its standard output."""
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    _reap_orphans()  # the capture's child, when the command did not wait for it
    if done.returncode != 0:
        sys.exit(f"{command[:3]} failed:\n{done.stderr[-2000:]}")
    return wall, _children_cpu() - cpu, done.stdout


def _cold(options: argparse.Namespace, env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """The hloscope command that compiles afresh, and its environment."""
    if options.command == "memory":
        return [*_hloscope(), "memory", options.target, "--device", "tpu-v5e", "--refresh"], env
    fresh = tempfile.mkdtemp(prefix="hloscope-bench-capture-")
    command = [*_hloscope(), "capture", options.target, "--device", "tpu-v5e", "-o", fresh + "/out"]
    return command, {**env, "HLOSCOPE_CACHE": fresh + "/cache"}


def _compile_seconds(stdout: str) -> float:
    """What the bare run's ``lowered.compile()`` took (its ``compile_s`` line)."""
    for line in stdout.splitlines():
        if line.startswith("compile_s "):
            return float(line.split()[1])
    sys.exit("the bare run printed no compile_s line")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--target", default="samples/tpu_programs.py:lm_step")
    parser.add_argument("--command", choices=("memory", "capture"), default="memory")
    options = parser.parse_args()
    _become_subreaper()
    script, name = options.target.rsplit(":", 1)
    cache = tempfile.mkdtemp(prefix="hloscope-bench-tpu-")
    env = {**os.environ, "HLOSCOPE_CACHE": cache}
    memory = [*_hloscope(), "memory", options.target, "--device", "tpu-v5e"]
    bare_command = [sys.executable, "-c", BARE, script, name]
    times: dict[str, list[float]] = {"bare": [], "compile": [], "cold": [], "cached": []}
    if options.command == "capture":
        del times["cached"]
    cpu: dict[str, list[float]] = {"bare": [], "cold": []}
    for round_ in range(options.rounds):
        order = ["bare", "cold"] if round_ % 2 == 0 else ["cold", "bare"]
        for which in order:
            command, run_env = (bare_command, env) if which == "bare" else _cold(options, env)
            seconds, cpu_seconds, stdout = _timed(command, run_env)
            times[which].append(seconds)
            cpu[which].append(cpu_seconds)
            if which == "bare":
                times["compile"].append(_compile_seconds(stdout))
        if options.command == "memory":
            times["cached"].append(_timed(memory, env)[0])
        print(
            f"round {round_ + 1}: "
            + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items())
            + f"; CPU bare {cpu['bare'][-1]:.2f} s, cold {cpu['cold'][-1]:.2f} s "
            + f"({cpu['cold'][-1] / cpu['bare'][-1] - 1:+.1%})",
            flush=True,
        )
    shutil.rmtree(cache, ignore_errors=True)
    bare, compile_, cold = (statistics.median(times[k]) for k in ("bare", "compile", "cold"))
    cached = statistics.median(times["cached"]) if "cached" in times else None
    own = cold - bare
    print(f"target {options.target}, {options.rounds} rounds, medians:")
    print(f"  bare run: jit(f).lower(...).compile() for v5e:1x1  {bare:8.2f} s")
    print(f"    of which lowered.compile() itself                  {compile_:8.2f} s")
    label = f"hloscope {options.command} --device tpu-v5e"
    print(f"  {label + ' (cold)':<52}{cold:8.2f} s")
    if cached is not None:
        print(f"  {label + ' (cached)':<52}{cached:8.2f} s")
    print(
        f"  hloscope's own time around the compile: {own:+.2f} s = {own / compile_:+.1%} of "
        f"the compile itself, {own / bare:+.1%} of the bare run (budget < 5%)"
    )
    if cached is not None:
        print(f"  cached command: {cached:.2f} s (budget < 1 s)")
    cpu_bare, cpu_cold = statistics.median(cpu["bare"]), statistics.median(cpu["cold"])
    ratios = [cold / bare - 1 for cold, bare in zip(cpu["cold"], cpu["bare"])]
    print(
        f"  CPU time of the whole process tree: bare {cpu_bare:.2f} s, cold {cpu_cold:.2f} s: "
        f"hloscope's own {cpu_cold - cpu_bare:+.2f} s = {cpu_cold / cpu_bare - 1:+.1%} of the bare "
        f"run; per round {', '.join(f'{r:+.1%}' for r in ratios)} "
        f"(median {statistics.median(ratios):+.1%})"
    )


if __name__ == "__main__":
    main()

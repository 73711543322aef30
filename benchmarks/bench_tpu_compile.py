"""What hloscope adds around an XLA:TPU compile, cold and cached (issue 29's budget).

Measured the way a user runs it, fresh processes each round, the order alternating:

* **bare**: ``python -c`` doing what a user would by hand: set libtpu's environment, import
  jax, build the program's example arguments, describe the ``v5e:1x1`` topology, place the
  arguments there and ``jax.jit(f).lower(...).compile()``;
* **hloscope cold**: ``hloscope memory SCRIPT.py:FUNCTION --device tpu-v5e --refresh`` (the
  same compile in its capture child, plus the dump, the memory analysis and the text);
* **hloscope cached**: the same command again without ``--refresh``: it reads the cache;
* **hloscope capture**: ``hloscope capture SCRIPT.py:FUNCTION --device tpu-v5e -o DIR`` (a
  fresh cache and folder each run): the compile and what hloscope keeps of it, without the
  memory analysis ``memory`` then does, which a bare compile does not.

``--command memory|capture`` runs one of the two (default: both, in the same rounds, against
the same bare runs). ``--against TREE`` runs each command from another tree of hloscope too
(a checkout of an earlier commit), in the same rounds: before and after, alternating.

Printed, for each command: the medians, hloscope's own time around the compile (cold minus
bare) as a share of the compile itself (the bare run's ``lowered.compile()``; budget: under
5%: issue 37's ratio) and of the whole bare run, the same per round, and the cached command
(budget: under 1 s). hloscope runs from this tree (first on ``PYTHONPATH``) through this
interpreter's ``hloscope`` console script.

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
        [--command memory|capture|both] [--against TREE]
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
    """The ``hloscope`` console script of this interpreter (what ``pip install`` puts beside
    it, and what a user types), else ``python -m hloscope``: never a shim of another program
    (pyenv's adds a tenth of a second of bash to every run that the bare run does not pay)."""
    beside = Path(sys.executable).with_name("hloscope")
    return [str(beside)] if beside.is_file() else [sys.executable, "-m", "hloscope"]


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


#: Where every run runs: a folder holding no tree of hloscope (a capture's child, ``python -m``,
#: puts its working folder first on ``sys.path``: in a checkout it would import that tree).
_NEUTRAL = tempfile.mkdtemp(prefix="hloscope-bench-cwd-")


def _timed(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """The command's wall time, the CPU time of its whole process tree, its standard output."""
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=_NEUTRAL, capture_output=True, text=True)
    wall = time.perf_counter() - start
    _reap_orphans()  # the capture's child, when the command did not wait for it
    if done.returncode != 0:
        sys.exit(f"{command[:3]} failed:\n{done.stderr[-2000:]}")
    return wall, _children_cpu() - cpu, done.stdout


def _cold(command: str, target: str, env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """The hloscope command that compiles afresh, and its environment."""
    if command == "memory":
        return [*_hloscope(), "memory", target, "--device", "tpu-v5e", "--refresh"], env
    fresh = tempfile.mkdtemp(prefix="hloscope-bench-capture-")
    line = [*_hloscope(), "capture", target, "--device", "tpu-v5e", "-o", fresh + "/out"]
    return line, {**env, "HLOSCOPE_CACHE": fresh + "/cache"}


def _tree_env(tree: Path, cache: str) -> dict[str, str]:
    """The environment that runs hloscope from ``tree`` (first on ``PYTHONPATH``)."""
    paths = [str(tree), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "HLOSCOPE_CACHE": cache}


def _compile_seconds(stdout: str) -> float:
    """What the bare run's ``lowered.compile()`` took (its ``compile_s`` line)."""
    for line in stdout.splitlines():
        if line.startswith("compile_s "):
            return float(line.split()[1])
    sys.exit("the bare run printed no compile_s line")


def _runs(commands: list[str], trees: list[Path]) -> list[tuple[str, Path | None]]:
    """What one round runs: the bare compile, then each command from each tree."""
    return [("bare", None), *((c, t) for t in trees for c in commands)]


def _label(command: str, tree: Path | None, trees: list[Path]) -> str:
    return command if tree is None or len(trees) == 1 else f"{command}@{tree.name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--target", default="samples/tpu_programs.py:lm_step")
    parser.add_argument("--command", choices=("memory", "capture", "both"), default="both")
    parser.add_argument(
        "--against", type=Path, help="another tree of hloscope, measured in the same rounds"
    )
    options = parser.parse_args()
    _become_subreaper()
    script, name = options.target.rsplit(":", 1)
    script = str((ROOT / script).resolve())  # run from a neutral folder (_NEUTRAL)
    target = f"{script}:{name}"
    commands = ["memory", "capture"] if options.command == "both" else [options.command]
    trees = [ROOT, *([options.against.resolve()] if options.against else [])]
    caches = {tree: tempfile.mkdtemp(prefix="hloscope-bench-tpu-") for tree in trees}
    bare_command = [sys.executable, "-c", BARE, script, name]
    runs = _runs(commands, trees)
    wall: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    compile_s: list[float] = []
    for round_ in range(options.rounds):
        shift = round_ % len(runs)  # each run in each place of the order, round by round
        for command, tree in runs[shift:] + runs[:shift]:
            label = _label(command, tree, trees)
            if tree is None:
                line, env = bare_command, _tree_env(ROOT, caches[ROOT])
            else:
                line, env = _cold(command, target, _tree_env(tree, caches[tree]))
            seconds, cpu_seconds, stdout = _timed(line, env)
            if command == "capture":  # its fresh cache and folder
                shutil.rmtree(Path(env["HLOSCOPE_CACHE"]).parent, ignore_errors=True)
            wall.setdefault(label, []).append(seconds)
            cpu.setdefault(label, []).append(cpu_seconds)
            if tree is None:
                compile_s.append(_compile_seconds(stdout))
        if "memory" in commands:
            for tree in trees:
                line = [*_hloscope(), "memory", target, "--device", "tpu-v5e"]
                cached = _timed(line, _tree_env(tree, caches[tree]))[0]
                wall.setdefault(_label("cached", tree, trees), []).append(cached)
        shown = ", ".join(f"{k} {v[-1]:.2f} s" for k, v in wall.items())
        print(f"round {round_ + 1}: compile() {compile_s[-1]:.2f} s, {shown}", flush=True)
    for cache in [*caches.values(), _NEUTRAL]:
        shutil.rmtree(cache, ignore_errors=True)
    _summary(options, commands, trees, wall, cpu, compile_s)


def _summary(
    options: argparse.Namespace,
    commands: list[str],
    trees: list[Path],
    wall: dict[str, list[float]],
    cpu: dict[str, list[float]],
    compile_s: list[float],
) -> None:
    median = statistics.median
    bare, compile_ = median(wall["bare"]), median(compile_s)
    print(f"target {options.target}, {options.rounds} rounds, medians:")
    print(f"  bare run: jit(f).lower(...).compile() for v5e:1x1  {bare:8.2f} s")
    print(f"    of which lowered.compile() itself                  {compile_:8.2f} s")
    for tree in trees:
        for command in commands:
            label = _label(command, tree, trees)
            cold = median(wall[label])
            print(f"  {'hloscope ' + label + ' --device tpu-v5e (cold)':<52}{cold:8.2f} s")
            own = cold - bare
            # Per round too: that round's own time over that round's compile.
            rounds = [
                (c - b) / s for c, b, s in zip(wall[label], wall["bare"], compile_s, strict=True)
            ]
            print(
                f"    hloscope's own time around the compile: {own:+.2f} s = "
                f"{own / compile_:+.1%} of the compile itself, {own / bare:+.1%} of the bare run "
                f"(budget < 5%); per round {', '.join(f'{r:+.1%}' for r in rounds)}"
            )
            cpu_bare, cpu_cold = median(cpu["bare"]), median(cpu[label])
            ratios = [c / b - 1 for c, b in zip(cpu[label], cpu["bare"], strict=True)]
            print(
                f"    CPU time of the whole process tree: bare {cpu_bare:.2f} s, cold "
                f"{cpu_cold:.2f} s: hloscope's own {cpu_cold - cpu_bare:+.2f} s = "
                f"{cpu_cold / cpu_bare - 1:+.1%} of the bare run; per round "
                f"{', '.join(f'{r:+.1%}' for r in ratios)}"
            )
        cached_label = _label("cached", tree, trees)
        if cached_label in wall:
            cached = median(wall[cached_label])
            print(f"  hloscope {cached_label} (cached): {cached:.2f} s (budget < 1 s)")


if __name__ == "__main__":
    main()

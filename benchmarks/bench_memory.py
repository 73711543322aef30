"""``hloscope memory`` on a large module: a deep transformer's train step, unrolled.

    python benchmarks/bench_memory.py [--layers 48] [--folder DIR] [--repeat 3]
    python benchmarks/bench_memory.py --hlo /tmp/big48.txt [--repeat 3]

A child process compiles the train step of a ``--layers``-layer transformer (each layer a
separate Python call, so the optimized module holds every layer's ops: the size of the
48-layer module issue 21 names) with ``--xla_dump_to=DIR`` and reports how long XLA's compile
with that dump took: the peer, measured in the same run. Then, best of ``--repeat`` each:

* ``parse``: hloscope parsing the optimized module text alone;
* ``memory``: ``hloscope memory DIR`` as the command runs it (the module, XLA's side files,
  the result: source ``buffer_assignment``);
* ``memory (simulated)``: the same module with no side files: parse plus hloscope's
  live-range simulation (the path a module copied without its side files takes).

It prints the module's size, each time and its ratio against XLA's compile and against the
parse, and checks the budget (under 5 s including the simulation) and that the simulation
agrees with XLA's live-range peak.

With ``--hlo FILE`` (an optimized module's text, such as ``samples/regenerate.py --big``'s) there
is no compile: the peer is hloscope's parse of the same text, and the rows are the parse, the
simulated result on the parsed module, and ``hloscope memory FILE`` run as a fresh process
(start-up included), each with its ratio to the parse, against the same budget.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hloscope.analysis.memory import memory_from_simulation  # noqa: E402
from hloscope.capture.target import Target  # noqa: E402
from hloscope.drivers.memory import memory_results  # noqa: E402
from hloscope.dump.index import load_dump  # noqa: E402
from hloscope.hlo.parser import parse  # noqa: E402

BUDGET_S = 5.0

_CHILD = r"""
import json, sys, time
import jax, jax.numpy as jnp

LAYERS, D, H, T, B = int(sys.argv[1]), 256, 1024, 128, 4


def layer(p, x):
    q, k, v = x @ p["wq"], x @ p["wk"], x @ p["wv"]
    a = jax.nn.softmax(q @ jnp.swapaxes(k, -1, -2) / 16.0, axis=-1)
    x = x + (a @ v) @ p["wo"]
    return x + jax.nn.gelu(x @ p["w1"]) @ p["w2"]


def loss(ps, x):
    for p in ps:
        x = layer(p, x)
    return jnp.mean(x**2)


def train_step(ps, x):
    g = jax.grad(loss)(ps, x)
    return jax.tree.map(lambda a, b: a - 0.01 * b, ps, g)


shapes = {"wq": (D, D), "wk": (D, D), "wv": (D, D), "wo": (D, D), "w1": (D, H), "w2": (H, D)}
ps = [{n: jax.ShapeDtypeStruct(s, jnp.float32) for n, s in shapes.items()} for _ in range(LAYERS)]
x = jax.ShapeDtypeStruct((B, T, D), jnp.float32)
lowered = jax.jit(train_step).lower(ps, x)
start = time.perf_counter()
lowered.compile()
print(json.dumps({"compile_s": time.perf_counter() - start}))
"""


def _dump(layers: int, folder: Path) -> float:
    """Compile the train step into ``folder``; XLA's compile time with the dump."""
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env["XLA_FLAGS"] = f"--xla_dump_to={folder} --xla_dump_hlo_as_text"
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(layers)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])["compile_s"]


def _best(repeat: int, fn) -> tuple[float, object]:  # noqa: ANN001 - a zero-argument callable
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def _command(path: Path) -> None:
    """``hloscope memory PATH`` as a user runs it: a fresh interpreter, output discarded."""
    subprocess.run(
        [sys.executable, "-m", "hloscope", "memory", str(path)],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def _main_hlo(path: Path, repeat: int) -> int:
    text = path.read_text()
    parse_s, module = _best(repeat, lambda: parse(text))
    simulated_s, simulated = _best(repeat, lambda: memory_from_simulation(parse(text)))
    command_s, _ = _best(repeat, lambda: _command(path))
    count = sum(1 for _ in module.instructions())
    print(f"module: {path}, {len(text) / 1e6:.1f} MB of text, {count} instructions")
    print(f"simulated peak {simulated.peak_bytes} bytes")
    rows = [
        ("parse (peer)", parse_s),
        ("parse + simulated result", simulated_s),
        ("hloscope memory FILE", command_s),
    ]
    for name, seconds in rows:
        print(f"{name:28} {seconds:7.2f} s   {seconds / parse_s:5.2f}x the parse")
    verdict = "met" if command_s < BUDGET_S else "NOT met"
    print(f"budget: under {BUDGET_S:.0f} s, start-up included: {verdict} ({command_s:.2f} s)")
    return 0 if command_s < BUDGET_S else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=48)
    parser.add_argument("--folder", type=Path, default=None, help="dump folder (kept)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--reuse", action="store_true", help="read --folder's dump as it is (no compile, no peer)"
    )
    parser.add_argument(
        "--hlo", type=Path, default=None, help="an optimized module's text: no compile"
    )
    args = parser.parse_args()
    if args.hlo is not None:
        return _main_hlo(args.hlo, args.repeat)
    folder = args.folder or Path(tempfile.mkdtemp(prefix="hloscope-bench-memory-"))
    compile_s = None if args.reuse else _dump(args.layers, folder)
    dumped = next(m for m in load_dump(folder).modules if m.name == "jit_train_step")
    text = dumped.after_file.path.read_text()
    xla_peak = dumped.buffer_assignment().live_range.peak_bytes

    parse_s, module = _best(args.repeat, lambda: parse(text))
    memory_s, result = _best(
        args.repeat, lambda: memory_results(Target.resolve(str(folder)), module="jit_train_step")
    )
    simulated_s, simulated = _best(args.repeat, lambda: memory_from_simulation(parse(text)))
    assert result[0].source == "buffer_assignment" and result[0].peak_bytes == xla_peak

    print(f"module: {args.layers}-layer transformer train step, {len(text) / 1e6:.1f} MB of text,")
    print(f"  {sum(1 for _ in module.instructions())} instructions; XLA's peak {xla_peak} bytes")
    if compile_s is not None:
        print(f"XLA compile with dump (peer): {compile_s:7.2f} s")
    rows = [
        ("parse", parse_s),
        ("memory (buffer_assignment)", memory_s),
        ("memory (simulated)", simulated_s),
    ]
    for name, seconds in rows:
        versus = f"{seconds / compile_s:5.2f}x XLA's compile   " if compile_s else ""
        print(f"{name:28} {seconds:7.2f} s   {versus}{seconds / parse_s:5.2f}x the parse")
    off = abs(simulated.peak_bytes - xla_peak) / xla_peak
    print(f"simulated peak {simulated.peak_bytes} bytes: {100 * off:.2f}% from XLA's")
    worst = max(memory_s, simulated_s)
    verdict = "met" if worst < BUDGET_S else "NOT met"
    print(f"budget: under {BUDGET_S:.0f} s including the simulation: {verdict} ({worst:.2f} s)")
    return 0 if worst < BUDGET_S and off <= 0.10 else 1


if __name__ == "__main__":
    raise SystemExit(main())

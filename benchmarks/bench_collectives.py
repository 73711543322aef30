"""``hloscope collectives`` on large modules: an SPMD train step and the 54 MB module.

    python benchmarks/bench_collectives.py [--layers 256] [--folder DIR] [--reuse]
                                           [--hlo /tmp/big48.txt] [--repeat 3]
                                           [--device tpu-v5e]

**The SPMD module.** A child process compiles, for 8 host devices on a (data=2, model=4)
mesh, the train step of a ``--layers``-layer transformer with Megatron-style tensor-parallel
weights (``wq``/``wk``/``wv``/``w1`` split by columns over ``model``, ``wo``/``w2`` by rows;
the batch over ``data``), each layer a separate Python call, so that the optimized module
holds every layer's ops and collectives: 256 layers make about 100k instructions. It is dumped
with ``--xla_dump_to=DIR`` (``--reuse`` reads ``--folder``'s dump as it is).

**The 54 MB module** is ``--hlo FILE`` (default ``/tmp/big48.txt`` when it exists: ``python
samples/regenerate.py --big /tmp/big48.txt --big-layers 48``, as for ``bench_memory.py``), a
single-device train step of 402k instructions with no collectives: what the command costs a
module it has nothing to say about.

For each module, best of ``--repeat``, the peer being hloscope's parse of the same text,
measured in the same run:

* ``parse (peer)``: the optimized module's text parsed;
* ``parse + collectives_of``: the parse and the whole reading (collectives, mesh, parameter
  shardings, the ops on either side of each collective);
* ``hloscope collectives TARGET``: the command in a fresh process, start-up included, output
  discarded (the SPMD target is the dump folder, read with its module before optimizations);
* ``... --device tpu-v5e``: the same, priced, with the step estimate (``--device`` names
  another device of the interconnect table).

It prints each wall time and CPU time (this process and its children: on a shared machine
the wall clock counts the other work too) with its ratio to the parse, and checks the budgets
on both commands' wall times, plain and priced: under 3 s on the SPMD module, under 5 s on the
54 MB one.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hloscope.analysis.collectives import collectives_of  # noqa: E402
from hloscope.hlo.parser import parse  # noqa: E402

SPMD_BUDGET_S = 3.0
BIG_BUDGET_S = 5.0
BIG_DEFAULT = Path("/tmp/big48.txt")

_CHILD = r"""
import json, sys, time
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

LAYERS, D, H, T, B = int(sys.argv[1]), 256, 1024, 128, 8
mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("data", "model"))


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


col, row = NamedSharding(mesh, P(None, "model")), NamedSharding(mesh, P("model", None))
spec = {"wq": ((D, D), col), "wk": ((D, D), col), "wv": ((D, D), col),
        "wo": ((D, D), row), "w1": ((D, H), col), "w2": ((H, D), row)}
ps = [{n: jax.ShapeDtypeStruct(s, jnp.float32, sharding=sh) for n, (s, sh) in spec.items()}
      for _ in range(LAYERS)]
x = jax.ShapeDtypeStruct((B, T, D), jnp.float32, sharding=NamedSharding(mesh, P("data")))
shardings = [{n: sh for n, (_, sh) in spec.items()} for _ in range(LAYERS)]
lowered = jax.jit(train_step, out_shardings=shardings).lower(ps, x)
start = time.perf_counter()
lowered.compile()
print(json.dumps({"compile_s": time.perf_counter() - start}))
"""


def _dump(layers: int, folder: Path) -> float:
    """Compile the SPMD train step into ``folder``; XLA's compile time with the dump."""
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env["XLA_FLAGS"] = (
        f"--xla_force_host_platform_device_count=8 --xla_dump_to={folder} --xla_dump_hlo_as_text"
    )
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(layers)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    # XLA:CPU dumps its LLVM IR and objects too: not what this measures, and hundreds of MB.
    for path in folder.iterdir():
        if path.suffix in (".ll", ".o"):
            path.unlink()
    return json.loads(out.stdout.strip().splitlines()[-1])["compile_s"]


def _cpu() -> float:
    """CPU seconds of this process and its finished children: on a shared machine the wall
    clock counts the other work too, the CPU time only this one's."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _best(repeat: int, fn) -> tuple[float, float, object]:  # noqa: ANN001 - no-argument callable
    """The best wall time of ``repeat`` runs of ``fn``, the best CPU time, and its value."""
    best, best_cpu, value = float("inf"), float("inf"), None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), _cpu()
        value = fn()
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, _cpu() - start_cpu)
    return best, best_cpu, value


def _command(*args: str) -> None:
    """``hloscope collectives ARGS`` as a user runs it: a fresh interpreter, output discarded."""
    subprocess.run(
        [sys.executable, "-m", "hloscope", "collectives", *args],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def _measure(label: str, target: Path, text: str, repeat: int, budget: float, device: str) -> bool:
    parse_s, parse_cpu, module = _best(repeat, lambda: parse(text))
    read_s, read_cpu, result = _best(repeat, lambda: collectives_of(parse(text)))
    command_s, command_cpu, _ = _best(repeat, lambda: _command(str(target)))
    priced_s, priced_cpu, _ = _best(repeat, lambda: _command(str(target), "--device", device))
    count = sum(1 for _ in module.instructions())
    kinds = Counter(c.kind.value for c in result.collectives)
    print(f"{label}: {target}")
    print(f"  {len(text) / 1e6:.1f} MB of text, {count} instructions, {result.devices} devices,")
    mesh = "none" if result.mesh is None else "x".join(map(str, result.mesh.shape))
    listed = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "none"
    print(f"  mesh {mesh}; collectives: {listed}")
    rows = [
        ("parse (peer)", parse_s, parse_cpu),
        ("parse + collectives_of", read_s, read_cpu),
        ("hloscope collectives TARGET", command_s, command_cpu),
        (f"... --device {device}", priced_s, priced_cpu),
    ]
    print(f"  {'':30} {'wall':>9} {'vs parse':>9} {'cpu':>9} {'vs parse':>9}")
    for name, seconds, cpu in rows:
        print(
            f"  {name:30} {seconds:7.2f} s {seconds / parse_s:8.2f}x "
            f"{cpu:7.2f} s {cpu / parse_cpu:8.2f}x"
        )
    load = os.getloadavg()[0]
    met = True
    for what, seconds, cpu in (
        ("", command_s, command_cpu),
        (f" --device {device}", priced_s, priced_cpu),
    ):
        verdict = "met" if seconds < budget else "NOT met"
        met = met and seconds < budget
        print(
            f"  budget: hloscope collectives{what} under {budget:.0f} s, start-up included: "
            f"{verdict} ({seconds:.2f} s wall, {cpu:.2f} s cpu; load average {load:.1f})"
        )
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=256)
    parser.add_argument("--folder", type=Path, default=None, help="SPMD dump folder (kept)")
    parser.add_argument("--reuse", action="store_true", help="read --folder's dump as it is")
    parser.add_argument("--hlo", type=Path, default=None, help="the 54 MB module's text")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--device", default="tpu-v5e", help="the device the priced run names")
    args = parser.parse_args()

    folder = args.folder or Path(tempfile.mkdtemp(prefix="hloscope-bench-collectives-"))
    if not args.reuse:
        folder.mkdir(parents=True, exist_ok=True)
        compile_s = _dump(args.layers, folder)
        print(
            f"XLA compile of the {args.layers}-layer SPMD train step with dump: {compile_s:.1f} s"
        )
    (after,) = folder.glob("*jit_train_step.cpu_after_optimizations.txt")
    ok = _measure("SPMD module", folder, after.read_text(), args.repeat, SPMD_BUDGET_S, args.device)

    big = args.hlo or (BIG_DEFAULT if BIG_DEFAULT.exists() else None)
    if big is None:
        print(f"54 MB module: not measured (no --hlo and no {BIG_DEFAULT})")
    else:
        big_text = big.read_text()
        ok = _measure("54 MB module", big, big_text, args.repeat, BIG_BUDGET_S, args.device) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

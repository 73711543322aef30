"""Regenerate tests/data/tpu: modules XLA:TPU itself made, and XLA:TPU's own figures for them.

    python tests/data/tpu/regenerate.py [PROGRAM ...]

Each program below is compiled for a TPU *topology* in a fresh interpreter (libtpu's deviceless
compile: no TPU is needed, see ../../../README and /work/shared/docs/tpu.md section 1), with
``XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_text``. A single chip is ``v5e:1x1``; the SPMD
program is compiled for the 8 chips of ``v5e:2x4``. From each dump the files the tests read are
kept under ``<program>/`` with XLA's own file names, so that the folder reads as a dump
(``*.after_optimizations.txt``, ``*.before_optimizations.txt``,
``*.after_optimizations-buffer-assignment.txt``, ``*.after_optimizations-memory-usage-report.txt``;
the other files of the dump are left out to keep the folder small), ``SOURCE.py`` is the
program as it ran (the line numbers of its metadata are its lines), and ``oracle.json``
holds what the compiled executable itself says: ``cost_analysis()`` (flops, bytes accessed,
...) and ``memory_analysis()`` (argument, output, temp, peak bytes). Tests compare hloscope's
readings of the text with those figures, so they never copy hloscope's own output.

Needs jax with libtpu (``pip install "jax[tpu]"``); made with jax/jaxlib 0.10.2 and libtpu
0.0.42.1. Other versions write different text: regenerate everything with one set of versions.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The temporary folder the programs ran from, as the metadata of the kept files names it.
NEUTRAL_FOLDER = "/home/user/tpu"
# The dump files kept (what follows the module's name in XLA's file names); the rest is left out.
KEPT = (
    "before_optimizations.txt",
    "after_optimizations.txt",
    "after_optimizations-buffer-assignment.txt",
    "after_optimizations-memory-usage-report.txt",
)
# libtpu reads these before it loads: without them it looks for a TPU host it cannot find.
TPU_ENV = {
    "TPU_ACCELERATOR_TYPE": "v5litepod-4",
    "TPU_WORKER_HOSTNAMES": "localhost",
    "TPU_SKIP_MDS_QUERY": "1",
    "JAX_PLATFORMS": "cpu",
    # Other processes on this machine may hold libtpu's lock file; a compile needs no chip.
    "ALLOW_MULTIPLE_LIBTPU_LOAD": "1",
}

# The prologue every program runs under: a topology, and ``spec`` for its arguments.
PROLOGUE = """
import json, sys
import numpy as np
import jax
import jax.numpy as jnp
from jax.experimental import topologies

TOPOLOGY = sys.argv[1]
bounds = {"chips_per_host_bounds": (1, 1, 1)} if TOPOLOGY == "v5e:1x1" else {}
topo = topologies.get_topology_desc(platform="tpu", topology_name=TOPOLOGY, **bounds)
ONE = jax.sharding.SingleDeviceSharding(topo.devices[0])


def spec(shape, dtype=jnp.float32, sharding=ONE):
    return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)
"""

# The epilogue: compile ``FUNCTION`` on ``ARGS`` and print XLA:TPU's own figures as JSON.
EPILOGUE = """
compiled = jax.jit(FUNCTION).lower(*ARGS).compile()
cost = compiled.cost_analysis()
cost = cost[0] if isinstance(cost, list) else cost
memory = compiled.memory_analysis()
fields = ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
          "temp_size_in_bytes", "generated_code_size_in_bytes", "peak_memory_in_bytes")
print(json.dumps({
    "topology": TOPOLOGY,
    "cost_analysis": {key: float(value) for key, value in sorted(cost.items())},
    "memory_analysis": {key: int(getattr(memory, key)) for key in fields},
}))
"""

PROGRAMS: dict[str, tuple[str, str]] = {}


def program(name: str, source: str, topology: str = "v5e:1x1") -> None:
    PROGRAMS[name] = (topology, textwrap.dedent(source).strip("\n"))


_TRANSFORMER = """
# A language model's train step: embedding lookup, fused q/k/v projection split in three
# (XLA:TPU turns the split into asynchronous slices and its gradient's concatenation into
# ConcatBitcast), attention, MLP, logits through the tied embedding, gradients and SGD.
WIDTH, HEADS, SEQ, BATCH, VOCAB = 256, 8, 128, 4, 4096


def block(p, x):
    q, k, v = jnp.split(jax.nn.standardize(x, axis=-1) @ p["qkv"], 3, axis=-1)
    q, k, v = (t.reshape(BATCH, SEQ, HEADS, WIDTH // HEADS) for t in (q, k, v))
    weights = jax.nn.softmax(jnp.einsum("bshk,bthk->bhst", q, k) / 8.0, axis=-1)
    x = x + jnp.einsum("bhst,bthk->bshk", weights, v).reshape(BATCH, SEQ, WIDTH) @ p["o"]
    hidden = jax.nn.gelu(jax.nn.standardize(x, axis=-1) @ p["up"])
    return x + hidden @ p["down"]


def loss(params, embedding, ids):
    x = embedding[ids]
    for p in params:
        x = BLOCK(p, x)
    logits = (x @ embedding.T).astype(jnp.float32)
    return (jax.nn.logsumexp(logits, axis=-1) - logits[..., 0]).mean()


def FUNCTION(params, embedding, ids):
    grads = jax.grad(loss, argnums=(0, 1))(params, embedding, ids)
    update = lambda w, g: w - (0.01 * g).astype(w.dtype)
    return jax.tree.map(update, (params, embedding), grads)


layer = {
    "qkv": spec((WIDTH, 3 * WIDTH), jnp.bfloat16),
    "o": spec((WIDTH, WIDTH), jnp.bfloat16),
    "up": spec((WIDTH, 4 * WIDTH), jnp.bfloat16),
    "down": spec((4 * WIDTH, WIDTH), jnp.bfloat16),
}
ARGS = ([layer, layer], spec((VOCAB, WIDTH), jnp.bfloat16), spec((BATCH, SEQ), jnp.int32))
"""

program("transformer_train", _TRANSFORMER.replace("BLOCK(", "block("))
program("transformer_remat", _TRANSFORMER.replace("BLOCK(", "jax.checkpoint(block)("))

program(
    "conv_net",
    """
    def conv(x, w, stride):
        return jax.lax.conv_general_dilated(
            x, w, (stride, stride), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )


    def FUNCTION(w1, w2, w3, images):
        x = jax.nn.relu(conv(images, w1, 1))
        x = jax.nn.relu(conv(x, w2, 2))
        x = jax.nn.relu(conv(x, w3, 2))
        return x.mean(axis=(1, 2))


    ARGS = (
        spec((3, 3, 3, 64), jnp.bfloat16),
        spec((3, 3, 64, 128), jnp.bfloat16),
        spec((3, 3, 128, 256), jnp.bfloat16),
        spec((16, 64, 64, 3), jnp.bfloat16),
    )
    """,
)

program(
    "narrow_arrays",
    """
    def FUNCTION(points, offsets):
        moved = points * 2.0 + offsets
        return moved, jnp.sqrt((moved * moved).sum(axis=1))


    ARGS = (spec((65536, 6)), spec((65536, 6)))
    """,
)

program(
    "fused_reduction",
    """
    def FUNCTION(x, scale):
        centred = x - x.mean(axis=-1, keepdims=True)
        return jnp.exp(centred * scale).sum(axis=-1), jnp.max(jnp.abs(x), axis=0)


    ARGS = (spec((2048, 1024)), spec((1024,)))
    """,
)

program(
    "pallas_kernels",
    """
    # Two Pallas (Mosaic) kernels: XLA:TPU knows the cost of the one given a cost_estimate and
    # of no other; the elementwise ops between them are XLA's own.
    from jax.experimental import pallas as pl


    def matmul_kernel(x_ref, y_ref, o_ref):
        o_ref[...] = jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32).astype(
            o_ref.dtype
        )


    def matmul(x, y, estimate):
        (m, k), n = x.shape, y.shape[1]
        cost = pl.CostEstimate(flops=2 * m * n * k, transcendentals=0,
                               bytes_accessed=2 * (m * k + k * n + m * n))
        return pl.pallas_call(
            matmul_kernel,
            out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
            grid=(m // 256, n // 256),
            in_specs=[pl.BlockSpec((256, k), lambda i, j: (i, 0)),
                      pl.BlockSpec((k, 256), lambda i, j: (0, j))],
            out_specs=pl.BlockSpec((256, 256), lambda i, j: (i, j)),
            cost_estimate=cost if estimate else None,
        )(x, y)


    def FUNCTION(x, w1, w2):
        hidden = jnp.tanh(matmul(x, w1, estimate=True))
        return matmul(hidden, w2, estimate=False).astype(jnp.float32).sum()


    ARGS = (
        spec((1024, 512), jnp.bfloat16),
        spec((512, 1024), jnp.bfloat16),
        spec((1024, 512), jnp.bfloat16),
    )
    """,
)

program(
    "spmd_matmul",
    """
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    mesh = Mesh(np.array(topo.devices).reshape(2, 4), ("data", "model"))


    def FUNCTION(x, w1, w2):
        hidden = jax.nn.relu(x @ w1)
        return jnp.sum((hidden @ w2).astype(jnp.float32) ** 2)


    ARGS = (
        spec((512, 512), jnp.bfloat16, NamedSharding(mesh, P("data", None))),
        spec((512, 1024), jnp.bfloat16, NamedSharding(mesh, P(None, "model"))),
        spec((1024, 512), jnp.bfloat16, NamedSharding(mesh, P("model", None))),
    )
    """,
    topology="v5e:2x4",
)


def compile_program(name: str, into: Path = HERE) -> Path:
    """Compile one program in a fresh interpreter and keep its dump's key files in
    ``into/<name>`` (here by default; a test compiles into a temporary folder)."""
    topology, source = PROGRAMS[name]
    target = into / name
    with tempfile.TemporaryDirectory() as work:
        dump = Path(work) / "dump"
        (Path(work) / name).mkdir()
        script = Path(work) / name / "SOURCE.py"
        script.write_text(PROLOGUE.lstrip("\n") + "\n" + source + "\n" + EPILOGUE)
        env = {**os.environ, **TPU_ENV}
        env["XLA_FLAGS"] = f"--xla_dump_to={dump} --xla_dump_hlo_as_text"
        done = subprocess.run(
            [sys.executable, str(script), topology], env=env, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise SystemExit(f"{name}: compile failed\n{done.stderr[-3000:]}")
        oracle = json.loads(done.stdout.strip().splitlines()[-1])
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        shutil.copy(script, target / "SOURCE.py")
        for suffix in KEPT:
            (found,) = dump.glob(f"*jit_FUNCTION*.{suffix}")
            (target / found.name).write_text(found.read_text().replace(work, NEUTRAL_FOLDER))
        (target / "oracle.json").write_text(json.dumps(oracle, indent=1, sort_keys=True) + "\n")
    return target


def main(names: list[str]) -> None:
    for name in names or list(PROGRAMS):
        target = compile_program(name)
        print(f"{name}: {sum(p.stat().st_size for p in target.iterdir()) / 1e3:.0f} kB")


if __name__ == "__main__":
    main(sys.argv[1:])

"""Regenerate tests/data/pallas_errors: what JAX and XLA:TPU print when a Pallas kernel fails.

    python tests/data/pallas_errors/regenerate.py [CASE ...]

Each case below is a small program whose Pallas kernel JAX or XLA:TPU refuses. It is written
to a temporary folder as ``kernel.py`` and compiled for a TPU v5e (``v5e:1x1``; the sharded
case for the four chips of ``v5e:2x2``) with libtpu's deviceless compile, which needs no TPU
(/work/shared/docs/tpu.md section 1). What the program printed (its traceback, the error and
libtpu's start-up lines) is kept as ``CASE.log``, with the temporary folder written as
``/home/user/kernels`` and the Python installation as ``/usr/lib/python3``;
``CASE.kernel.py`` is the program as it ran (the log's line numbers are its lines). The line
marked ``# fails here`` is the line to fix as far as the log can tell (the kernel's own line
when the message names it).

Needs jax with libtpu (``pip install "jax[tpu]"``); made with jax/jaxlib 0.10.2 and libtpu
0.0.42.1.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
NEUTRAL_FOLDER = "/home/user/kernels"
NEUTRAL_PYTHON = "/usr/lib/python3"
TPU_ENV = {
    "TPU_ACCELERATOR_TYPE": "v5litepod-4",
    "TPU_WORKER_HOSTNAMES": "localhost",
    "TPU_SKIP_MDS_QUERY": "1",
    "JAX_PLATFORMS": "cpu",
    "ALLOW_MULTIPLE_LIBTPU_LOAD": "1",
}

PROLOGUE = """
import numpy as np
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental import topologies
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

CHIPS = {chips}
bounds = {{"chips_per_host_bounds": (1, 1, 1)}} if CHIPS == "v5e:1x1" else {{}}
topology = topologies.get_topology_desc(platform="tpu", topology_name=CHIPS, **bounds)
ONE = jax.sharding.SingleDeviceSharding(topology.devices[0])


def spec(shape, dtype=jnp.float32, sharding=ONE):
    return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)
"""

CASES: dict[str, tuple[str, str]] = {
    # A block of (100, 100): neither a multiple of (8, 128) nor the whole (1000, 1000).
    "block_shape": (
        "v5e:1x1",
        """
        def double(x_ref, o_ref):
            o_ref[...] = x_ref[...] * 2


        def step(x):
            return pl.pallas_call(  # fails here
                double,
                out_shape=jax.ShapeDtypeStruct((1000, 1000), jnp.float32),
                grid=(10, 10),
                in_specs=[pl.BlockSpec((100, 100), lambda i, j: (i, j))],
                out_specs=pl.BlockSpec((100, 100), lambda i, j: (i, j)),
            )(x)


        jax.jit(step).lower(spec((1000, 1000))).compile()
        """,
    ),
    # No grid and no BlockSpec: the kernel loads the whole 256 MiB array into VMEM.
    "vmem": (
        "v5e:1x1",
        """
        def double(x_ref, o_ref):
            o_ref[...] = x_ref[...] * 2


        def step(x):
            return pl.pallas_call(double, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


        jax.jit(step).lower(spec((8192, 8192))).compile()  # fails here
        """,
    ),
    # A kernel called on an array sharded over four chips, without shard_map.
    "partition": (
        "v5e:2x2",
        """
        def double(x_ref, o_ref):
            o_ref[...] = x_ref[...] * 2


        def step(x):
            return pl.pallas_call(  # fails here
                double, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype)
            )(x)


        mesh = Mesh(np.array(topology.devices).reshape(4), ("x",))
        rows = NamedSharding(mesh, P("x", None))
        jax.jit(step).lower(spec((1024, 1024), sharding=rows)).compile()
        """,
    ),
    # jnp.sort inside a kernel: Mosaic has no lowering for it. JAX's message names the
    # primitive but no line of the kernel: the line the log gives is the call.
    "primitive": (
        "v5e:1x1",
        """
        def sort_rows(x_ref, o_ref):
            o_ref[...] = jnp.sort(x_ref[...], axis=-1)


        def step(x):
            return pl.pallas_call(sort_rows, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


        jax.jit(step).lower(spec((8, 128))).compile()  # fails here
        """,
    ),
    # A reshape that moves data across the (8, 128) tiles.
    "reshape": (
        "v5e:1x1",
        """
        def regroup(x_ref, o_ref):
            o_ref[...] = x_ref[...].reshape(24, 5, 7)  # fails here


        def step(x):
            out = jax.ShapeDtypeStruct((24, 5, 7), jnp.float32)
            return pl.pallas_call(regroup, out_shape=out)(x)


        jax.jit(step).lower(spec((8, 105))).compile()
        """,
    ),
    # An int16 matrix product: the matrix unit has no such operands.
    "matmul_dtype": (
        "v5e:1x1",
        """
        def product(x_ref, y_ref, o_ref):
            o_ref[...] = jnp.dot(  # fails here
                x_ref[...], y_ref[...], preferred_element_type=jnp.int32
            )


        def step(x, y):
            out = jax.ShapeDtypeStruct((8, 128), jnp.int32)
            return pl.pallas_call(product, out_shape=out)(x, y)


        jax.jit(step).lower(spec((8, 3), jnp.int16), spec((3, 128), jnp.int16)).compile()
        """,
    ),
}


def source(case: str) -> str:
    chips, body = CASES[case]
    return PROLOGUE.format(chips=repr(chips)).lstrip("\n") + "\n" + textwrap.dedent(body)


def run(case: str) -> str:
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "kernel.py"
        script.write_text(source(case))
        done = subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            text=True,
            env={**os.environ, **TPU_ENV},
            cwd=folder,
            timeout=600,
            check=False,
        )
        if done.returncode == 0:
            raise SystemExit(f"{case}: compiled, but it is meant to fail")
        text = done.stdout + done.stderr
        text = text.replace(str(script), f"{NEUTRAL_FOLDER}/kernel.py").replace(
            folder, NEUTRAL_FOLDER
        )
    for prefix in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["stdlib"]}:
        text = text.replace(prefix, NEUTRAL_PYTHON)
    return text


def main(names: list[str]) -> None:
    for case in names or list(CASES):
        (HERE / f"{case}.log").write_text(run(case))
        (HERE / f"{case}.kernel.py").write_text(source(case))
        print(f"{case}: {len((HERE / f'{case}.log').read_text())} characters")


if __name__ == "__main__":
    main(sys.argv[1:])

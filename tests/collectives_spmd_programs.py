"""SPMD programs with known collectives, compiled for 8 host devices (run as a script).

``python tests/collectives_spmd_programs.py DUMP_DIR`` compiles each program below under
``--xla_force_host_platform_device_count=8`` and dumps its HLO to ``DUMP_DIR/NAME``. The tests
in ``tests/test_collectives_spmd.py`` run it in a subprocess (the device count must be set
before jax starts) and check hloscope's reading against what each program does by construction.
"""

from __future__ import annotations

import os
import sys


def main(out: str) -> None:
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    devices = jax.devices()
    assert len(devices) == 8, devices
    mesh = Mesh(_mesh(devices, (8,)), ("data",))
    mesh2 = Mesh(_mesh(devices, (4, 2)), ("data", "model"))

    def compile_to(name, fn, *args, **jit):
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        lowered = jax.jit(fn, **jit).lower(*args)
        # The dump flag is read per compile: a fresh dump folder for each program.
        options = {"xla_dump_to": folder, "xla_dump_hlo_as_text": True}
        lowered.compile(compiler_options=options)

    # Data parallel: the gradient of a replicated weight over a batch sharded 8 ways is one
    # all-reduce of the weight's size (f32[64,32]: 8192 bytes) over all 8 devices.
    def dp_grad(w, x):
        return jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w)))(w)

    w = jax.device_put(jnp.ones((64, 32)), NamedSharding(mesh, P()))
    x = jax.device_put(jnp.ones((128, 64)), NamedSharding(mesh, P("data")))
    compile_to("data_parallel", dp_grad, w, x, out_shardings=NamedSharding(mesh, P()))

    # Tensor-parallel MLP over "model" (2 ways), batch over "data" (4 ways): w1 column-sharded,
    # w2 row-sharded; the second matmul's partial sums are one all-reduce over the 2 "model"
    # devices of each data row, of the per-device output f32[8,16] (512 bytes).
    def mlp(x, w1, w2):
        return jnp.tanh(x @ w1) @ w2

    x = jax.device_put(jnp.ones((32, 16)), NamedSharding(mesh2, P("data", None)))
    w1 = jax.device_put(jnp.ones((16, 64)), NamedSharding(mesh2, P(None, "model")))
    w2 = jax.device_put(jnp.ones((64, 16)), NamedSharding(mesh2, P("model", None)))
    compile_to("tp_mlp", mlp, x, w1, w2, out_shardings=NamedSharding(mesh2, P("data", None)))

    # shard_map with ppermute (a ring over all 8) and psum_scatter (8 ways) of f32[16,4] blocks.
    shard_map = jax.shard_map

    def ring(x):
        shifted = lax.ppermute(x, "data", [(i, (i + 1) % 8) for i in range(8)])
        return lax.psum_scatter(shifted, "data", scatter_dimension=0, tiled=True)

    ring_fn = shard_map(ring, mesh=mesh, in_specs=P("data"), out_specs=P("data"))
    x = jax.device_put(jnp.ones((128, 4)), NamedSharding(mesh, P("data")))
    compile_to("shard_map_ring", ring_fn, x)

    # A psum inside lax.scan of 5 steps: one all-reduce of f32[4] per step.
    def scanned(x):
        def step(carry, _):
            return lax.psum(carry * 2.0, "data"), None

        return lax.scan(step, x, None, length=5)[0]

    # check_vma off: the carry is device-varying going in and summed (invariant) coming out.
    scan_fn = shard_map(
        scanned, mesh=mesh, in_specs=P("data"), out_specs=P("data"), check_vma=False
    )
    x = jax.device_put(jnp.ones((32,)), NamedSharding(mesh, P("data")))
    compile_to("scan_psum", scan_fn, x)


def _mesh(devices, shape):
    import numpy as np

    return np.array(devices).reshape(shape)


if __name__ == "__main__":
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in flags:
        os.environ["XLA_FLAGS"] = (flags + " --xla_force_host_platform_device_count=8").strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    main(sys.argv[1])

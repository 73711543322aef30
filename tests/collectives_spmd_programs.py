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

    def compile_to(name, fn, *args, unsupported=False, **jit):
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        lowered = jax.jit(fn, **jit).lower(*args)
        # The dump flag is read per compile: a fresh dump folder for each program.
        options = {"xla_dump_to": folder, "xla_dump_hlo_as_text": True}
        try:
            lowered.compile(compiler_options=options)
        except jax.errors.JaxRuntimeError as error:
            # XLA:CPU optimizes some collectives it cannot run (ragged-all-to-all): the
            # optimized module is dumped before code generation refuses it.
            if not unsupported or "UNIMPLEMENTED" not in str(error):
                raise

    def lower_for_gpu(name, fn, *args):
        # Collectives XLA:CPU does not lower at all (collective-broadcast, send/recv): XLA's
        # own StableHLO-to-HLO converter writes the module jax lowers for GPUs.
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        lowered = jax.jit(fn).trace(*args).lower(lowering_platforms=("cuda",))
        with open(os.path.join(folder, f"{name}.gpu_lowered.txt"), "w") as f:
            f.write(lowered.as_text(dialect="hlo"))

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

    # FSDP written with shard_map: each device holds an f32[8,32] slice of the f32[64,32]
    # weight and all-gathers it (8192 bytes gathered); the gradient of that all-gather is a
    # reduce-scatter of the full f32[64,32] gradient (8192 bytes in, f32[8,32] out).
    def fsdp_loss(w_shard, x):
        w = lax.all_gather(w_shard, "data", axis=0, tiled=True)
        return jnp.sum(jnp.tanh(x @ w))

    def fsdp_step(w_shard, x):
        return w_shard - 0.1 * jax.grad(fsdp_loss)(w_shard, x)

    fsdp_fn = shard_map(fsdp_step, mesh=mesh, in_specs=(P("data"), P("data")), out_specs=P("data"))
    compile_to("fsdp", fsdp_fn, jnp.ones((64, 32)), jnp.ones((128, 64)))

    # The same FSDP step left to the SPMD partitioner (parameters sharded P("data") under jit):
    # the weight is all-gathered; XLA:CPU writes the gradient's reduction as an all-reduce of the
    # whole f32[32,64] gradient transpose, each device then keeping its slice (CPU does not run
    # the pass that fuses the pair into a reduce-scatter). Its groups are in the mesh form.
    def fsdp_jit_step(w, x):
        return w - 0.1 * jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w)))(w)

    w = jax.device_put(jnp.ones((64, 32)), NamedSharding(mesh, P("data")))
    x = jax.device_put(jnp.ones((128, 64)), NamedSharding(mesh, P("data")))
    compile_to("fsdp_jit", fsdp_jit_step, w, x, out_shardings=NamedSharding(mesh, P("data")))

    # An expert layer (8 experts, one per device, top-1 routing, capacity 2): the tokens are
    # dispatched to their expert's device by an all-to-all of the f32[8,2,16] dispatch buffer
    # (1024 bytes per device) and the expert outputs come back by a second one.
    experts, capacity, dim = 8, 2, 16

    def expert_layer(x, router, w):
        mask = jax.nn.one_hot(jnp.argmax(x @ router, -1), experts)
        position = jnp.cumsum(mask, axis=0) * mask - 1
        dispatch = mask[:, :, None] * jax.nn.one_hot(position, capacity)
        sent = jnp.einsum("tec,td->ecd", dispatch, x)
        sent = lax.all_to_all(sent, "expert", 0, 0, tiled=True)
        out = jnp.tanh(jnp.einsum("ecd,df->ecf", sent, w[0]))
        out = lax.all_to_all(out, "expert", 0, 0, tiled=True)
        return jnp.einsum("tec,ecd->td", dispatch, out)

    mesh_e = Mesh(_mesh(devices, (8,)), ("expert",))
    moe_fn = shard_map(
        expert_layer, mesh=mesh_e, in_specs=(P("expert"), P(), P("expert")), out_specs=P("expert")
    )
    args = (jnp.ones((64, dim)), jnp.ones((dim, experts)), jnp.ones((experts, dim, dim)))
    compile_to("expert_all_to_all", moe_fn, *args)

    # ragged_all_to_all over 8 devices: each sends from its f32[16,4] block (256 bytes) into an
    # f32[16,4] output, with s32[8] offsets and sizes.
    def ragged(x, output, in_offsets, send_sizes, out_offsets, recv_sizes):
        return lax.ragged_all_to_all(
            x, output, in_offsets, send_sizes, out_offsets, recv_sizes, axis_name="data"
        )

    ragged_fn = shard_map(
        ragged, mesh=mesh, in_specs=(P("data"),) * 6, out_specs=P("data"), check_vma=False
    )
    sizes = jnp.zeros((64,), jnp.int32)
    args = (jnp.ones((128, 4)), jnp.zeros((128, 4)), sizes, sizes, sizes, sizes)
    compile_to("ragged_all_to_all", ragged_fn, *args, unsupported=True)

    # A psum in one branch of lax.cond: one all-reduce of f32[8], in a conditional's branch.
    def branchy(x, c):
        return lax.cond(c[0] > 0, lambda v: lax.psum(v, "data"), lambda v: v * 2.0, x)

    cond_fn = shard_map(
        branchy, mesh=mesh, in_specs=(P("data"), P()), out_specs=P("data"), check_vma=False
    )
    compile_to("cond_psum", cond_fn, jnp.ones((64,)), jnp.ones((1,)))

    # Data parallel along the first axis of a (data=4, model=2) mesh: the gradient of the
    # model-sharded f32[16,64] weight (its f32[32,16] per-device transpose, 2048 bytes) is
    # all-reduced over the 4 "data" devices of each model column, groups {0,2,4,6} and
    # {1,3,5,7}, which XLA writes in the iota form with a transpose.
    def dp2(w, x):
        return jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w)))(w)

    w = jax.device_put(jnp.ones((16, 64)), NamedSharding(mesh2, P(None, "model")))
    x = jax.device_put(jnp.ones((32, 16)), NamedSharding(mesh2, P("data", None)))
    by_model = NamedSharding(mesh2, P(None, "model"))
    compile_to("dp_over_data_axis", dp2, w, x, out_shardings=by_model)

    # collective-broadcast from device 3 of 8 (pbroadcast), of each device's f32[8,4] block.
    def broadcast(x):
        # The axis as a tuple: jax 0.10's pbroadcast reads a bare name letter by letter.
        return lax.pbroadcast(x, ("data",), 3)

    bcast_fn = shard_map(
        broadcast, mesh=mesh, in_specs=P("data"), out_specs=P("data"), check_vma=False
    )
    lower_for_gpu("collective_broadcast", bcast_fn, jnp.ones((64, 4)))

    # send and recv around a ring of 8 (psend/precv), each of an f32[8,4] block (128 bytes).
    ring_pairs = [(i, (i + 1) % 8) for i in range(8)]

    def send_recv(x):
        token = lax.psend(x, "data", ring_pairs)
        return lax.precv(token, jax.ShapeDtypeStruct(x.shape, x.dtype), "data", ring_pairs)

    sr_fn = shard_map(
        send_recv, mesh=mesh, in_specs=P("data"), out_specs=P("data"), check_vma=False
    )
    lower_for_gpu("send_recv", sr_fn, jnp.ones((64, 4)))


def _mesh(devices, shape):
    import numpy as np

    return np.array(devices).reshape(shape)


if __name__ == "__main__":
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in flags:
        os.environ["XLA_FLAGS"] = (flags + " --xla_force_host_platform_device_count=8").strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    main(sys.argv[1])

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def matmul_kernel(x_ref, w_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += x_ref[...] @ w_ref[...]
    o_ref[...] = acc_ref[...]


def matmul(x, w, bm=128, bk=128):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=0,
        grid=(x.shape[0] // bm, x.shape[1] // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, k: (i, k)),
                  pl.BlockSpec((bk, w.shape[1]), lambda i, k: (k, 0))],
        out_specs=pl.BlockSpec((bm, w.shape[1]), lambda i, k: (i, 0)),
        # the float32 accumulator that lives across the k steps
        scratch_shapes=[jax.ShapeDtypeStruct((bm, w.shape[1]), jnp.float32)],
    )
    return pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), jnp.float32),
        grid_spec=grid_spec,
        interpret=True,
    )(x, w)


print(matmul(jnp.ones((256, 512)), jnp.ones((512, 128))).shape)

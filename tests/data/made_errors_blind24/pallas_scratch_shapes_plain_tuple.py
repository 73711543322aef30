import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def row_sum_kernel(x_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += x_ref[...].sum(axis=1, keepdims=True)
    o_ref[...] = acc_ref[...]


def row_sum(x, bm=64, bk=128):
    return pl.pallas_call(
        row_sum_kernel,
        out_shape=jax.ShapeDtypeStruct((x.shape[0], 1), x.dtype),
        grid=(x.shape[0] // bm, x.shape[1] // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, k: (i, k))],
        out_specs=pl.BlockSpec((bm, 1), lambda i, k: (i, 0)),
        scratch_shapes=[(bm, 1)],  # the f32 accumulator
        interpret=True,
    )(x)


print(row_sum(jnp.ones((256, 1024)))[:2])

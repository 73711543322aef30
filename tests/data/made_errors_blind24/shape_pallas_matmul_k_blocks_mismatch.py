import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def matmul_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...])


def matmul(x, w, bm=32, bn=64):
    return pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype),
        grid=(x.shape[0] // bm, w.shape[1] // bn),
        in_specs=[
            pl.BlockSpec((bm, 64), lambda i, j: (i, 0)),  # K tiled by 64...
            pl.BlockSpec((w.shape[0], bn), lambda i, j: (0, j)),  # ...but not here
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=True,
    )(x, w)


print(matmul(jnp.ones((128, 256)), jnp.ones((256, 128))).sum())

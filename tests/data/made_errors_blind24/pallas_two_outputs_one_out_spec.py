import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def softmax_stats_kernel(x_ref, max_ref, sum_ref):
    x = x_ref[...]
    m = x.max(axis=-1, keepdims=True)
    max_ref[...] = m
    sum_ref[...] = jnp.exp(x - m).sum(axis=-1, keepdims=True)


def softmax_stats(x, rows=8):
    out = jax.ShapeDtypeStruct((x.shape[0], 1), x.dtype)
    return pl.pallas_call(
        softmax_stats_kernel,
        out_shape=(out, out),
        grid=(x.shape[0] // rows,),
        in_specs=[pl.BlockSpec((rows, x.shape[1]), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((rows, 1), lambda i: (i, 0)),
        interpret=True,
    )(x)


print(softmax_stats(jnp.ones((64, 128))))

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def dense_kernel(x_ref, w_ref, b_ref, o_ref):
    o_ref[...] = x_ref[...] @ w_ref[...] + b_ref[...]


def dense(x, w):
    # the bias was folded into the previous layer's norm and dropped here
    return pl.pallas_call(dense_kernel,
                          out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype),
                          interpret=True)(x, w)


print(dense(jnp.ones((8, 128)), jnp.ones((128, 128))).sum())

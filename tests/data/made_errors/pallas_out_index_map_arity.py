import jax
import jax.numpy as jnp

from jax.experimental import pallas as pl

def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3

x = jnp.ones((8, 8))
pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
    in_specs=[pl.BlockSpec((4, 8), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((4, 8), lambda i, j: (i, j)), interpret=True,
)(x)

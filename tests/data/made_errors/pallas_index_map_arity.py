import jax
import jax.numpy as jnp

from jax.experimental import pallas as pl

def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1

x = jnp.ones((8, 8))
spec = pl.BlockSpec((4, 4), lambda i: (i, 0))
pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2, 2),
    in_specs=[spec], out_specs=spec, interpret=True,
)(x)

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def bias_kernel(x_ref, b_ref, o_ref):
    o_ref[...] = x_ref[...] + b_ref[...]


x = jnp.ones((16, 8))
bias = jnp.ones((16, 8))
out = pl.pallas_call(
    bias_kernel,
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    grid=(4,),
    in_specs=[pl.BlockSpec((4, 8), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((4, 8), lambda i: (i, 0)),
    interpret=True,
)(x, bias)

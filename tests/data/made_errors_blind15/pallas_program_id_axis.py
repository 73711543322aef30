import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def row_scale_kernel(x_ref, o_ref):
    row = pl.program_id(1)
    o_ref[...] = x_ref[...] * (row + 1)


x = jnp.ones((16, 8))
out = pl.pallas_call(
    row_scale_kernel,
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    grid=(4,),
    in_specs=[pl.BlockSpec((4, 8), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((4, 8), lambda i: (i, 0)),
    interpret=True,
)(x)

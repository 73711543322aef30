import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def rowsum_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...].sum(axis=1)


x = jnp.ones((16, 8))
out = pl.pallas_call(
    rowsum_kernel,
    out_shape=jax.ShapeDtypeStruct((16, 8), x.dtype),
    grid=(4,),
    in_specs=[pl.BlockSpec((4, 8), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((4, 8), lambda i: (i, 0)),
    interpret=True,
)(x)

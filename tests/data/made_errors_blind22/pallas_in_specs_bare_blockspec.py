import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def residual_add_kernel(x_ref, r_ref, o_ref):
    o_ref[...] = x_ref[...] + r_ref[...]


def residual_add(x, residual):
    tile = pl.BlockSpec((256, 128), lambda i: (i, 0))
    return pl.pallas_call(
        residual_add_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 256,),
        in_specs=tile,  # both inputs are tiled the same way
        out_specs=tile,
        interpret=True,
    )(x, residual)


print(residual_add(jnp.ones((1024, 128)), jnp.ones((1024, 128))).shape)

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def scale_heads(x):
    # x (heads, seq, dim): one head per grid step
    heads, seq, dim = x.shape
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(heads,),
        in_specs=[pl.BlockSpec((1, seq, dim), lambda h: (h, 0))],
        out_specs=pl.BlockSpec((1, seq, dim), lambda h: (h, 0, 0)),
        interpret=True,
    )(x)


print(scale_heads(jnp.ones((4, 64, 128))).shape)

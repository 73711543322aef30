import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def add_bias_kernel(x_ref, b_ref, o_ref):
    o_ref[...] = x_ref[...] + b_ref[...]


def add_bias(x, b):
    return pl.pallas_call(
        add_bias_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 128,),
        in_specs=[pl.BlockSpec((128, 128), lambda i: (i, 0)),
                  pl.BlockSpec((1, 128), (0, 0))],  # the bias row is the same block each step
        out_specs=pl.BlockSpec((128, 128), lambda i: (i, 0)),
        interpret=True,
    )(x, b)


print(add_bias(jnp.ones((512, 128)), jnp.ones((1, 128))).shape)

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

BLOCK = 128


def gelu_kernel(x_ref, o_ref):
    o_ref[...] = jax.nn.gelu(x_ref[...])


def gelu(x):
    return pl.pallas_call(
        gelu_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] / BLOCK,),
        in_specs=[pl.BlockSpec((BLOCK, x.shape[1]), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((BLOCK, x.shape[1]), lambda i: (i, 0)),
        interpret=True,
    )(x)


print(gelu(jnp.ones((1024, 256))).shape)

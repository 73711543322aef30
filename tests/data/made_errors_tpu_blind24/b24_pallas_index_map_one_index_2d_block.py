import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def add_one_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0

x = jnp.ones((1024, 128), jnp.float32)
row_block = pl.BlockSpec((256, 128), lambda i: (i,))
out = pl.pallas_call(add_one_kernel, grid=(4,), in_specs=[row_block],
                     out_specs=pl.BlockSpec((256, 128), lambda i: (i, 0)),
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(out.sum())

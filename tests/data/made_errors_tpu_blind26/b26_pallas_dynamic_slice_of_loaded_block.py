import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def row_tile_kernel(x_ref, o_ref):
    block = x_ref[...]
    i = pl.program_id(0)
    o_ref[...] = jax.lax.dynamic_slice(block, (i * 8, 0), (8, 128))

x = jnp.ones((32, 128), jnp.float32)
out = pl.pallas_call(row_tile_kernel, grid=(4,),
                     in_specs=[pl.BlockSpec((32, 128), lambda i: (0, 0))],
                     out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(out.sum())

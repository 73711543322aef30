import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def causal_prefix_kernel(x_ref, o_ref):
    acc = jnp.zeros((8, 128), jnp.float32)
    for j in range(pl.program_id(0) + 1):
        acc += x_ref[pl.ds(j * 8, 8), :]
    o_ref[...] = acc

x = jnp.ones((32, 128), jnp.float32)
out = pl.pallas_call(causal_prefix_kernel, grid=(4,),
                     in_specs=[pl.BlockSpec((32, 128), lambda i: (0, 0))],
                     out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
                     out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32))(x)
print(out.sum())

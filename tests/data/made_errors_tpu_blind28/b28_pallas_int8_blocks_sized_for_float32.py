import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def dequantize_kernel(q_ref, scale_ref, o_ref):
    o_ref[...] = q_ref[...].astype(jnp.float32) * scale_ref[...]

q = jnp.ones((4096, 1024), jnp.int8)
scale = jnp.full((4096, 1), 0.02, jnp.float32)
rows = pl.BlockSpec((8, 1024), lambda i: (i, 0))
out = pl.pallas_call(dequantize_kernel, grid=(512,),
                     in_specs=[rows, pl.BlockSpec((8, 1), lambda i: (i, 0))], out_specs=rows,
                     out_shape=jax.ShapeDtypeStruct(q.shape, jnp.float32))(q, scale)
print(out.sum())

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def row_sum_kernel(x_ref, o_ref):
    o_ref[...] = jnp.sum(x_ref[...], axis=1)

x = jnp.ones((256, 512), jnp.float32)
sums = pl.pallas_call(row_sum_kernel,
                      out_shape=jax.ShapeDtypeStruct((256, 1), jnp.float32))(x)
print(sums[:4])

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def sum_of_squares_kernel(x_ref, o_ref):
    o_ref[...] = jnp.sum(x_ref[...] ** 2)

x = jnp.ones((512, 512), jnp.float32)
total = pl.pallas_call(sum_of_squares_kernel,
                       out_shape=jax.ShapeDtypeStruct((), jnp.float32))(x)
print(total)

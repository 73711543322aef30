import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def rotate_kernel(z_ref, o_ref):
    o_ref[...] = z_ref[...] * (0.6 + 0.8j)

z = jnp.ones((8, 128), jnp.complex64)
out = pl.pallas_call(rotate_kernel,
                     out_shape=jax.ShapeDtypeStruct(z.shape, z.dtype))(z)
print(out[0, 0])

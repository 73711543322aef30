import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def reverse_time_kernel(x_ref, o_ref):
    o_ref[...] = jnp.flip(x_ref[...], axis=0)

sequence = jnp.ones((128, 256), jnp.float32)
backward = pl.pallas_call(reverse_time_kernel,
                          out_shape=jax.ShapeDtypeStruct(sequence.shape, sequence.dtype))(sequence)
print(backward[0, :4])

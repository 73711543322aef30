import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def split_halves_kernel(x_ref, o_ref):
    o_ref[...] = jax.lax.bitcast_convert_type(x_ref[...], jnp.bfloat16)

x = jnp.ones((256, 256), jnp.float32)
out = pl.pallas_call(split_halves_kernel,
                     out_shape=jax.ShapeDtypeStruct((256, 256, 2), jnp.bfloat16))(x)
print(out.shape)

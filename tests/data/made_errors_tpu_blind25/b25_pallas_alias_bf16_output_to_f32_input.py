import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def to_bf16_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...].astype(jnp.bfloat16)

x = jnp.ones((512, 256), jnp.float32)
out = pl.pallas_call(to_bf16_kernel, input_output_aliases={0: 0},
                     out_shape=jax.ShapeDtypeStruct(x.shape, jnp.bfloat16))(x)
print(out.dtype)

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def softmax_stats_kernel(x_ref, o_ref, max_ref):
    x = x_ref[...]
    m = jnp.max(x, axis=1, keepdims=True)
    o_ref[...] = jnp.exp(x - m)
    max_ref[...] = m

x = jnp.ones((256, 512), jnp.float32)
probs = pl.pallas_call(softmax_stats_kernel,
                       out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(probs.sum())

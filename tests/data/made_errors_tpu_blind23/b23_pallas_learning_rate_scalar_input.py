import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def sgd_kernel(w_ref, g_ref, lr_ref, o_ref):
    o_ref[...] = w_ref[...] - lr_ref[...] * g_ref[...]

w = jnp.ones((256, 128), jnp.float32)
g = jnp.full((256, 128), 0.5, jnp.float32)
sgd = pl.pallas_call(sgd_kernel, out_shape=jax.ShapeDtypeStruct(w.shape, w.dtype))
new_w = sgd(w, g, jnp.float32(0.01))
print(new_w[0, 0])

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def dense_elu_kernel(x_ref, w_ref, o_ref):
    h = jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32)
    o_ref[...] = jax.nn.elu(h)

x = jnp.ones((512, 256), jnp.float32)
w = jnp.ones((256, 512), jnp.float32) * 0.01
h = pl.pallas_call(dense_elu_kernel, grid=(4,),
                   in_specs=[pl.BlockSpec((128, 256), lambda i: (i, 0)),
                             pl.BlockSpec((256, 512), lambda i: (0, 0))],
                   out_specs=pl.BlockSpec((128, 512), lambda i: (i, 0)),
                   out_shape=jax.ShapeDtypeStruct((512, 512), jnp.float32))(x, w)
print(h.sum())

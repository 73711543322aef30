import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def gelu_kernel(x_ref, o_ref):
    o_ref[...] = jax.nn.gelu(x_ref[...])

def gelu(x):
    return pl.pallas_call(gelu_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

def mlp_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = gelu(x_ref[...] @ w_ref[...])

x = jnp.ones((256, 512), jnp.float32)
w = jnp.full((512, 256), 0.01, jnp.float32)
out = pl.pallas_call(mlp_kernel, out_shape=jax.ShapeDtypeStruct((256, 256), jnp.float32))(x, w)
print(out.sum())

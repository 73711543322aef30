import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

jax.config.update("jax_enable_x64", True)

def axpy_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = 2.0 * x_ref[...] + y_ref[...]

x = jnp.ones((256, 256))
y = jnp.ones((256, 256))
out = pl.pallas_call(axpy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y)
print(out.sum())

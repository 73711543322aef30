import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from jax import export

def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0

def double(x):
    return pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

exported = export.export(jax.jit(double), platforms=("tpu", "cpu"))(
    jax.ShapeDtypeStruct((256, 256), jnp.float32))
print(exported.platforms)

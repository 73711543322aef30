import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def scale_kernel(w_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * w_ref[...]

w = jnp.full((8, 128), 0.5, jnp.float32)
x = jnp.ones((8, 128), jnp.float32)
out = pl.pallas_call(
    scale_kernel,
    in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM), pl.BlockSpec(memory_space=pltpu.VMEM)],
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
)(w, x)
print(out.sum())

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from jax.experimental.pallas import triton as plgpu

def column_sum_kernel(x_ref, o_ref):
    plgpu.atomic_add(o_ref, (slice(None), slice(None)), x_ref[...])

x = jnp.ones((1024, 128), jnp.float32)
total = pl.pallas_call(
    column_sum_kernel,
    grid=(128,),
    in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((8, 128), lambda i: (0, 0)),
    out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
)(x)
print(total.sum())

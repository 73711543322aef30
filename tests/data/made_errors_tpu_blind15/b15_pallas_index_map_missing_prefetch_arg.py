import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def scale_rows_kernel(scale_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * scale_ref[0]

def scale_rows(scale, x):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(x.shape[0] // 8,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    )
    return pl.pallas_call(scale_rows_kernel, grid_spec=grid_spec,
                          out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(scale, x)

print(scale_rows(jnp.array([2.0]), jnp.ones((64, 128))).sum())

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def gather_rows_kernel(ids_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]

ids = jnp.array([3, 0, 2, 1], jnp.int32)
table = jnp.ones((1024, 256), jnp.float32)
spec = pl.BlockSpec((256, 256), lambda i, ids_ref: (ids_ref[i], 0))
out_spec = pl.BlockSpec((256, 256), lambda i, ids_ref: (i, 0))
grid_spec = pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(4,),
                                         in_specs=[spec], out_specs=out_spec)
out = pl.pallas_call(gather_rows_kernel, grid=(4,), grid_spec=grid_spec,
                     out_shape=jax.ShapeDtypeStruct(table.shape, table.dtype))(ids, table)
print(out.sum())

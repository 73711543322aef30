import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def copy_pages_kernel(page_table_ref, pages_ref, o_ref):
    o_ref[...] = pages_ref[...]


pages = jnp.ones((32, 128))
page_table = jnp.array([2.0, 0.0, 1.0, 3.0])  # read from the allocator's JSON
grid_spec = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(4,),
    in_specs=[pl.BlockSpec((8, 128), lambda i, table: (table[i], 0))],
    out_specs=pl.BlockSpec((8, 128), lambda i, table: (i, 0)),
)
out = pl.pallas_call(copy_pages_kernel, grid_spec=grid_spec,
                     out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
                     interpret=True)(page_table, pages)
print(out.sum())

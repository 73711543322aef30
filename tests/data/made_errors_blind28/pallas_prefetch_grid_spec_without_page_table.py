import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def gather_pages_kernel(page_table_ref, pages_ref, o_ref):
    o_ref[...] = pages_ref[...]


pages = jnp.ones((16, 8, 128))
page_table = jnp.array([3, 1, 4, 1, 5, 9, 2, 6])
grid_spec = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(8,),
    in_specs=[pl.BlockSpec((None, 8, 128), lambda i, table: (table[i], 0, 0))],
    out_specs=pl.BlockSpec((None, 8, 128), lambda i, table: (i, 0, 0)),
)
out = pl.pallas_call(gather_pages_kernel, grid_spec=grid_spec,
                     out_shape=jax.ShapeDtypeStruct((8, 8, 128), jnp.float32),
                     interpret=True)(pages)
print(out.shape)

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def gather_rows_kernel(ids_ref, table_ref, o_ref):
    o_ref[...] = table_ref[...]

def gather_rows(ids, table):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(ids.shape[0] // 64,),
        in_specs=[pl.BlockSpec((8, 128), lambda i, ids_ref: (ids_ref[i * 64], 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i, ids_ref: (i, 0)),
    )
    return pl.pallas_call(
        gather_rows_kernel, grid_spec=grid_spec,
        out_shape=jax.ShapeDtypeStruct((ids.shape[0] // 64 * 8, 128), table.dtype),
    )(ids, table)

ids = jnp.arange(2_000_000, dtype=jnp.int32) % 1024
table = jnp.ones((8192, 128), jnp.float32)
print(gather_rows(ids, table).shape)

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def gather_pages_kernel(page_table_ref, pages_ref, o_ref):
    o_ref[...] = pages_ref[...]


def gather_pages(pages, page_table, page_size=8):
    # paged KV cache: copy the pages of one sequence in the order of its page table
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(page_table.shape[0],),
        in_specs=[pl.BlockSpec((page_size, 128), lambda i, table: (table[i], 0))],
        out_specs=pl.BlockSpec((page_size, 128), lambda i, table: (i, 0)),
    )
    return pl.pallas_call(
        gather_pages_kernel,
        out_shape=jax.ShapeDtypeStruct((page_table.shape[0] * page_size, 128), pages.dtype),
        grid_spec=grid_spec,
        interpret=True,
    )(pages, page_table)


print(gather_pages(jnp.ones((256, 128)), jnp.array([5, 2, 9, 0])).shape)

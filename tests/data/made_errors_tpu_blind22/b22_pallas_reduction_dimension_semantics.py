import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def column_block_sum_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)
    o_ref[...] += x_ref[...]

x = jnp.ones((1024, 512), jnp.float32)
out = pl.pallas_call(
    column_block_sum_kernel,
    grid=(4, 4),
    in_specs=[pl.BlockSpec((256, 128), lambda i, j: (i, j))],
    out_specs=pl.BlockSpec((256, 128), lambda i, j: (i, 0)),
    out_shape=jax.ShapeDtypeStruct((1024, 128), jnp.float32),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "reduction")),
)(x)
print(out.sum())

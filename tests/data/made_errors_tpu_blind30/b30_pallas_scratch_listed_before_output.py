import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def matmul_kernel(x_ref, y_ref, acc_ref, o_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)

    @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = acc_ref[...].astype(o_ref.dtype)

x = jnp.ones((1024, 1024), jnp.bfloat16)
y = jnp.ones((1024, 1024), jnp.bfloat16)
out = pl.pallas_call(matmul_kernel, grid=(4, 4, 4),
                     in_specs=[pl.BlockSpec((256, 256), lambda i, j, k: (i, k)),
                               pl.BlockSpec((256, 256), lambda i, j, k: (k, j))],
                     out_specs=pl.BlockSpec((256, 256), lambda i, j, k: (i, j)),
                     out_shape=jax.ShapeDtypeStruct((1024, 1024), jnp.bfloat16),
                     scratch_shapes=[pltpu.VMEM((256, 256), jnp.float32)])(x, y)
print(out[0, 0])

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def matmul_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)

a = jnp.ones((2048, 1024), jnp.float32)
b = jnp.ones((1024, 2048), jnp.float32)
out = pl.pallas_call(matmul_kernel, grid=(4, 4),
                     in_specs=[pl.BlockSpec((512, 1024), lambda i, j: (i, 0)),
                               pl.BlockSpec((1024, 512), lambda i, j: (0, j))],
                     out_specs=pl.BlockSpec((512, 512), lambda i, j: (i, j)),
                     out_shape=jax.ShapeDtypeStruct((2048, 2048), jnp.float32),
                     compiler_params=pltpu.CompilerParams(vmem_limit_bytes=64))(a, b)
print(out[0, 0])

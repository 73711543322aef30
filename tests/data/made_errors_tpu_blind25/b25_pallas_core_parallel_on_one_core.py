import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0

x = jnp.ones((2048, 512), jnp.float32)
spec = pl.BlockSpec((1024, 512), lambda i: (i, 0))
out = pl.pallas_call(scale_kernel, grid=(2,), in_specs=[spec], out_specs=spec,
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                     compiler_params=pltpu.CompilerParams(
                         dimension_semantics=(pltpu.CORE_PARALLEL,)))(x)
print(out.sum())

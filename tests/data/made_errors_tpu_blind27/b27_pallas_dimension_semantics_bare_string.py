import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]

x = jnp.ones((1024, 256), jnp.float32)
spec = pl.BlockSpec((256, 256), lambda i: (i, 0))
out = pl.pallas_call(add_kernel, grid=(4,), in_specs=[spec, spec], out_specs=spec,
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                     compiler_params=pltpu.CompilerParams(dimension_semantics="parallel"))(x, x)
print(out.sum())

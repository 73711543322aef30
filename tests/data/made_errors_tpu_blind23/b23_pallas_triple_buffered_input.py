import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5

x = jnp.ones((8192, 512), jnp.float32)
in_spec = pl.BlockSpec((512, 512), lambda i: (i, 0), pipeline_mode=pl.Buffered(3))
out_spec = pl.BlockSpec((512, 512), lambda i: (i, 0))
out = pl.pallas_call(scale_kernel, grid=(16,), in_specs=[in_spec], out_specs=out_spec,
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(out.sum())

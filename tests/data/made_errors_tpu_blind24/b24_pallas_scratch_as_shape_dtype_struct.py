import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def running_sum_kernel(x_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)
    acc_ref[...] += x_ref[...]
    o_ref[...] = acc_ref[...]

x = jnp.ones((1024, 128), jnp.float32)
spec = pl.BlockSpec((256, 128), lambda i: (i, 0))
out = pl.pallas_call(running_sum_kernel, grid=(4,), in_specs=[spec], out_specs=spec,
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                     scratch_shapes=[jax.ShapeDtypeStruct((256, 128), jnp.float32)])(x)
print(out.sum())

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def gather_rows_kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm.at[pl.ds(128, 256)], buf, sem)
    copy.start()
    copy.wait()
    o_ref[...] = buf[...]

x = jnp.ones((1024, 512), jnp.float32)
out = pl.pallas_call(gather_rows_kernel, out_shape=jax.ShapeDtypeStruct((256, 512), jnp.float32),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                     scratch_shapes=[pltpu.VMEM((256, 512), jnp.float32),
                                     pltpu.SemaphoreType.REGULAR])(x)
print(out.sum())

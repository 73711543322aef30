import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def head_rows_kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm.at[pl.ds(0, 16)], buf, sem)
    copy.start()
    copy.wait()
    o_ref[...] = buf[...]

x = jnp.ones((1024, 128), jnp.float32)
out = pl.pallas_call(
    head_rows_kernel,
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype),
    scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA],
)(x)
print(out.sum())

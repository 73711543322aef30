import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def copy_in_kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm, buf, sem)
    copy.start()
    pltpu.semaphore_signal(sem)
    copy.wait()
    o_ref[...] = buf[...] * 2.0

x = jnp.ones((256, 128), jnp.float32)
out = pl.pallas_call(
    copy_in_kernel,
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    scratch_shapes=[pltpu.VMEM((256, 128), jnp.float32), pltpu.SemaphoreType.DMA],
)(x)
print(out.sum())

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def frames_kernel(x_ref, o_ref):
    i = pl.program_id(0)
    o_ref[...] = x_ref[:, pl.ds(i * 3, 128)]

signal = jnp.ones((8, 512), jnp.float32)
frames = pl.pallas_call(
    frames_kernel,
    grid=(4,),
    in_specs=[pl.BlockSpec((8, 512), lambda i: (0, 0))],
    out_specs=pl.BlockSpec((8, 128), lambda i: (0, i)),
    out_shape=jax.ShapeDtypeStruct((8, 512), jnp.float32),
)(signal)
print(frames.shape)

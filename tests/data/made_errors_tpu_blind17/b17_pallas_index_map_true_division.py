import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]

def upsample_rows(x, block=256):
    rows, cols = x.shape
    return pl.pallas_call(
        copy_kernel,
        grid=(2 * rows // block,),
        in_specs=[pl.BlockSpec((block, cols), lambda i: (i / 2, 0))],
        out_specs=pl.BlockSpec((block, cols), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct((2 * rows, cols), x.dtype),
    )(x)

print(upsample_rows(jnp.ones((1024, 128), jnp.float32)).shape)

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

import numpy as np

def normalize_kernel(x_ref, o_ref):
    x = x_ref[...]
    peak = jax.pure_callback(lambda a: np.float32(np.abs(a).max()),
                             jax.ShapeDtypeStruct((), jnp.float32), x)
    o_ref[...] = x / peak

x = jnp.ones((256, 256), jnp.float32)
out = pl.pallas_call(normalize_kernel,
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(out.sum())

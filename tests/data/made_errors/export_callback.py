import jax
import jax.numpy as jnp

import numpy as np
from jax import export

def host_sin(x):
    return jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

exp = export.export(jax.jit(host_sin))(jnp.ones(3))

import jax
import jax.numpy as jnp

import numpy as np

def fast_gelu(x):
    return jax.ffi.ffi_call("my_custom_kernel", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

jax.jit(fast_gelu)(np.ones(4, np.float32))

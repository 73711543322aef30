import jax
import jax.numpy as jnp

import functools

@functools.partial(jax.jit, static_argnums=1)
def take(x, idx):
    return x[jnp.array(idx)]

take(jnp.arange(5.0), [0, 2])

import jax
import jax.numpy as jnp

@jax.jit
def halve_until_small(x):
    while x > 1.0:
        x = x / 2
    return x

halve_until_small(jnp.float32(40.0))

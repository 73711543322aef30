import jax
import jax.numpy as jnp

@jax.jit
def scale(x, mode):
    return x * 2

scale(jnp.ones(3), "double")

import jax
import jax.numpy as jnp

@jax.jit
def make_buffer(n):
    return jnp.zeros((n, 4))

make_buffer(3)

import jax
import jax.numpy as jnp

@jax.jit
def positive_positions(x):
    return jnp.nonzero(x > 0)

positive_positions(jnp.array([1.0, -1.0, 2.0]))

import jax
import jax.numpy as jnp

@jax.jit
def keep_positive(x):
    return x[x > 0].sum()

keep_positive(jnp.array([1.0, -1.0, 2.0]))

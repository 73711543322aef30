import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)

@jax.jit
def entropy(p):
    return -(p * jnp.log(p)).sum()

entropy(jnp.array([0.5, -0.5]))

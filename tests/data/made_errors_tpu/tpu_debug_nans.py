import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)

@jax.jit
def log_prob(x):
    return jnp.log(x)

print(log_prob(jnp.array([1.0, -1.0])))

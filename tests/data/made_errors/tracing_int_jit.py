import jax
import jax.numpy as jnp

@jax.jit
def repeat(x, times):
    return jnp.tile(x, int(times))

print(repeat(jnp.ones(2), 3))

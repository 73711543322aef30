import jax
import jax.numpy as jnp

def pair(a, b):
    return a * b

jax.vmap(pair)(jnp.ones(3), jnp.ones(4))

import jax
import jax.numpy as jnp

def f(a, b):
    return a + b

jax.vmap(f, in_axes=(0, 0, 0))(jnp.ones(3), jnp.ones(3))

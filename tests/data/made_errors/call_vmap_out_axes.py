import jax
import jax.numpy as jnp

def pair(x):
    return x, x * 2

jax.vmap(pair, out_axes=(0, 0, 0))(jnp.ones(3))

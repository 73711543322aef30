import jax
import jax.numpy as jnp

key = 0
noise = jax.random.normal(key, (3,))

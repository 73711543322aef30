import jax
import jax.numpy as jnp

keys = jax.random.split(jax.random.key(0), 2)
a, b = jax.random.split(keys)

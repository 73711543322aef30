import jax
import jax.numpy as jnp

weights = jnp.ones(3)
step = jax.jit(weights)

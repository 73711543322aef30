import jax
import jax.numpy as jnp

from functools import partial

@partial(jax.jit, donate_argnums=(0, 1))
def adam_moments(mu, nu, g):
    return 0.9 * mu + 0.1 * g, 0.999 * nu + 0.001 * g * g

zeros = jnp.zeros((1024, 1024))
g = jnp.ones((1024, 1024))
mu, nu = adam_moments(zeros, zeros, g)
print(mu.sum(), nu.sum())

import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)


@jax.jit
def kl_divergence(p, q):
    return jnp.sum(p * jnp.log(p / q), axis=-1)


p = jnp.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])  # a one-sided label distribution
q = jnp.full((2, 3), 1 / 3)
print(kl_divergence(p, q))

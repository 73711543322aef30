import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)


def norm_penalty(x):
    return jnp.sqrt(jnp.sum(x ** 2))


@jax.jit
def regularised_step(x):
    return x - 0.1 * jax.grad(norm_penalty)(x)


x = jnp.zeros(3)
x = regularised_step(x)

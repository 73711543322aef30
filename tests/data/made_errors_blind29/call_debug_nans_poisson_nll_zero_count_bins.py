import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)


@jax.jit
def poisson_nll(rate, counts):
    # spike-count model: rate is zero where the neuron was silenced
    return jnp.sum(rate - counts * jnp.log(rate))


rate = jnp.array([0.5, 2.0, 0.0, 1.5])
counts = jnp.array([1.0, 3.0, 0.0, 2.0])
print(poisson_nll(rate, counts))

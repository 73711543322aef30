import jax
import jax.numpy as jnp


def noisy_grads(grads, key, step):
    # fresh gradient noise every step
    step_key = key + step
    return grads + 0.01 * jax.random.normal(step_key, grads.shape)


key = jax.random.key(0)
print(noisy_grads(jnp.zeros(8), key, 3))

import jax
import jax.numpy as jnp


@jax.jit
def positive_mean(x):
    positives = x[x > 0]
    return positives.mean()

print(positive_mean(jnp.linspace(-1.0, 1.0, 4096)))

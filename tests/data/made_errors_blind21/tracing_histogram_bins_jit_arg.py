import jax
import jax.numpy as jnp


@jax.jit
def activation_histogram(activations, num_bins):
    # logged to TensorBoard every 100 steps to watch for dead units
    counts, _ = jnp.histogram(activations, bins=num_bins, range=(-3.0, 3.0))
    return counts


print(activation_histogram(jnp.zeros(10_000), 50))

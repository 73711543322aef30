import jax
import jax.numpy as jnp

jax.config.update("jax_debug_infs", True)


@jax.jit
def class_weights(counts):
    return counts.sum() / counts


counts = jnp.array([120.0, 30.0, 0.0, 50.0])
print(class_weights(counts))

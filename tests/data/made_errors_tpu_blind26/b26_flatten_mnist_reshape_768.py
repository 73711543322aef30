import jax
import jax.numpy as jnp


@jax.jit
def classify(images, w):
    flat = images.reshape(images.shape[0], 768)
    return flat @ w

images = jnp.ones((64, 28, 28), jnp.float32)
w = jnp.zeros((784, 10), jnp.float32)
print(classify(images, w).shape)

import jax
import jax.numpy as jnp


@jax.jit
def pixel_covariance(images):
    pixels = images.reshape(images.shape[0], -1)
    centered = pixels - pixels.mean(axis=0)
    return centered.T @ centered / (pixels.shape[0] - 1)

images = jnp.ones((4096, 256, 256), jnp.float32)
cov = pixel_covariance(images)
print(cov.shape)

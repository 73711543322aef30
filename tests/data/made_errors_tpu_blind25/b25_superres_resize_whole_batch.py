import jax
import jax.numpy as jnp


@jax.jit
def upscale(images):
    return jax.image.resize(images, (images.shape[0], 4096, 4096, 3), "bilinear")

low_res = jnp.ones((128, 1024, 1024, 3), jnp.float32)
high_res = upscale(low_res)
print(high_res.shape)

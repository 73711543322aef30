import jax
import jax.numpy as jnp


@jax.jit
def augment(image, size):
    # multi-scale training: a new target size every few steps
    return jax.image.resize(image, (size, size, 3), method="bilinear")


image = jnp.ones((64, 64, 3))
for size in (32, 48):
    print(augment(image, size).shape)

import jax
import jax.numpy as jnp


def patchify(images, patch=16):
    b, h, w, c = images.shape
    x = images.reshape(b, h // patch, patch, w // patch, patch, c)
    return x.transpose(0, 1, 3, 2, 4, 5).reshape(b, -1, patch * patch * c)


images = jnp.ones((8, 225, 225, 3))  # the data pipeline resizes to 225
print(jax.jit(patchify)(images).shape)

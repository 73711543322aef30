import jax
import jax.numpy as jnp


@jax.jit
def preprocess(images):
    # the PyTorch-ported backbone wants NCHW
    images = images.astype(jnp.float32) / 255.0
    return jnp.transpose(images, (0, 2, 1))


batch = jnp.zeros((8, 224, 224, 3), jnp.uint8)
print(preprocess(batch).shape)

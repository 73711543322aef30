import jax
import jax.numpy as jnp

import augmentlib


@jax.jit
def train_views(images):
    # stronger augmentation for the high-contrast batches
    strength = jnp.clip(images.std() * 2.0, 0.1, 1.0)
    return augmentlib.randaugment(images, strength)


print(train_views(jnp.ones((8, 32, 32, 3))).shape)

import jax
import jax.numpy as jnp

import numpy as np

NUM_WORKERS = 8


def augment(key, images):
    flip = jax.random.bernoulli(key, 0.5, (images.shape[0], 1, 1, 1))
    return jnp.where(flip, images[:, :, ::-1], images)


# every data-loader worker gets its own seed
seeds = jnp.arange(NUM_WORKERS) + 1234
keys = jax.random.key(seeds)
batches = np.ones((NUM_WORKERS, 16, 32, 32, 3), np.float32)
print(jax.vmap(augment)(keys, batches).shape)

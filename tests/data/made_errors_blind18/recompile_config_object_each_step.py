import jax
import jax.numpy as jnp
from functools import partial

jax.config.update("jax_explain_cache_misses", True)


class AugmentConfig:
    def __init__(self, flip, noise):
        self.flip = flip
        self.noise = noise


@partial(jax.jit, static_argnames="cfg")
def augment(images, key, cfg):
    if cfg.flip:
        images = images[:, :, ::-1]
    return images + cfg.noise * jax.random.normal(key, images.shape)


images = jnp.ones((8, 32, 32))
for step in range(4):
    cfg = AugmentConfig(flip=True, noise=0.1)
    images = augment(images, jax.random.key(step), cfg=cfg)

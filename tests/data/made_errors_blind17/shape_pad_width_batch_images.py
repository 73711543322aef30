import jax
import jax.numpy as jnp


def random_crop(key, images, pad=4):
    padded = jnp.pad(images, ((pad, pad), (pad, pad)), mode="reflect")
    dx, dy = jax.random.randint(key, (2,), 0, 2 * pad)
    return jax.lax.dynamic_slice(padded, (0, dx, dy, 0), images.shape)


images = jnp.ones((32, 32, 32, 3))
crops = jax.jit(random_crop)(jax.random.key(0), images)

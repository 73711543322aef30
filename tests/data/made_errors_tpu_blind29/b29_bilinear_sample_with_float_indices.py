import jax
import jax.numpy as jnp


@jax.jit
def sample_nearest(image, coords):
    x0 = jnp.floor(coords[:, 0])
    y0 = jnp.floor(coords[:, 1])
    return image[y0, x0]

image = jnp.ones((512, 512), jnp.float32)
coords = jax.random.uniform(jax.random.key(0), (1024, 2)) * 511
print(sample_nearest(image, coords).shape)

import jax
import jax.numpy as jnp


@jax.jit
def random_crop(key, image):
    k_size, k_start = jax.random.split(key)
    size = jax.random.randint(k_size, (), 160, 224)
    start = jax.random.randint(k_start, (), 0, 224 - size)
    return jax.lax.dynamic_slice(image, (start, start, 0), (size, size, 3))

print(random_crop(jax.random.key(0), jnp.ones((224, 224, 3))).shape)

import jax
import jax.numpy as jnp


def jitter(key, points, max_shift=3):
    shift = jax.random.randint(key, points.shape, -max_shift, max_shift, dtype=jnp.float32)
    return points + shift


print(jitter(jax.random.key(0), jnp.zeros((4, 2))))

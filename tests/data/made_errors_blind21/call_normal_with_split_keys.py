import jax
import jax.numpy as jnp


def init_mlp(key, sizes):
    keys = jax.random.split(key, len(sizes) - 1)
    return [jax.random.normal(keys, (m, n)) / m**0.5 for m, n in zip(sizes[:-1], sizes[1:])]


params = init_mlp(jax.random.key(0), [784, 512, 10])
print([p.shape for p in params])

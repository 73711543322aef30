import jax
import jax.numpy as jnp

from functools import partial

@partial(jax.jit, static_argnums=1)
def init_mlp(key, sizes):
    keys = jax.random.split(key, len(sizes) - 1)
    return [jax.random.normal(k, (m, n)) * 0.01 for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

params = init_mlp(jax.random.key(0), [784, 512, 10])
print([p.shape for p in params])

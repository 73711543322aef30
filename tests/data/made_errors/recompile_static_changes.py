import jax
import jax.numpy as jnp

import functools

jax.config.update("jax_explain_cache_misses", True)

@functools.partial(jax.jit, static_argnames="scale")
def scaled(x, scale):
    return x * scale

for step in range(3):
    scaled(jnp.ones(4), scale=0.1 * step)

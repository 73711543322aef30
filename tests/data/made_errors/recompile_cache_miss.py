import jax
import jax.numpy as jnp

jax.config.update("jax_explain_cache_misses", True)

@jax.jit
def norm(x):
    return jnp.sqrt((x * x).sum())

for n in (3, 4, 5):
    norm(jnp.ones(n))

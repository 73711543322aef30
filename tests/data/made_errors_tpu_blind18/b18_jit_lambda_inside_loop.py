import jax
import jax.numpy as jnp

jax.config.update("jax_explain_cache_misses", True)

w = jnp.ones((1024, 1024))
g = jnp.full((1024, 1024), 0.01)
for step in range(3):
    w = jax.jit(lambda w, g: w - 0.1 * g)(w, g)
    print(step, float(w[0, 0]))

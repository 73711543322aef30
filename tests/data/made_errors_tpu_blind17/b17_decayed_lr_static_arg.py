import jax
import jax.numpy as jnp

from functools import partial

jax.config.update("jax_explain_cache_misses", True)

@partial(jax.jit, static_argnames="lr")
def sgd_step(w, g, lr):
    return w - lr * g

w, g = jnp.ones((1024, 1024)), jnp.full((1024, 1024), 0.01)
for step in range(3):
    w = sgd_step(w, g, lr=0.1 * 0.9**step)
    print(step, float(w[0, 0]))

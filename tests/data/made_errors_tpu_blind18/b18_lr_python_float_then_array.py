import jax
import jax.numpy as jnp

jax.config.update("jax_explain_cache_misses", True)

@jax.jit
def sgd_step(w, g, lr):
    return w - lr * g

w, g = jnp.ones((1024, 1024)), jnp.full((1024, 1024), 0.01)
schedule = [0.1, jnp.float32(0.05), 0.01]
for step, lr in enumerate(schedule):
    w = sgd_step(w, g, lr)
    print(step, float(w[0, 0]))

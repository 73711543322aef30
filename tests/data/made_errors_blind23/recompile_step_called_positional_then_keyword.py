import jax
import jax.numpy as jnp

jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def train_step(params, batch, lr):
    grads = jax.grad(lambda p: ((batch @ p) ** 2).mean())(params)
    return params - lr * grads


params = jnp.ones(16)
for step in range(4):
    batch = jnp.ones((32, 16))
    if step % 2 == 0:
        params = train_step(params, batch, 0.1)
    else:  # the refactored loop passes the learning rate by name
        params = train_step(params, batch, lr=0.1)

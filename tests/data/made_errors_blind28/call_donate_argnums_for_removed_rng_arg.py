import jax
import jax.numpy as jnp
from functools import partial


# the step used to take (params, opt_state, rng); the rng argument was removed
@partial(jax.jit, donate_argnums=(0, 1, 2))
def train_step(params, batch):
    grads = jax.grad(lambda p: jnp.mean((batch @ p) ** 2))(params)
    return params - 0.01 * grads


params = train_step(jnp.ones((16, 4)), jnp.ones((8, 16)))
print(params[0])

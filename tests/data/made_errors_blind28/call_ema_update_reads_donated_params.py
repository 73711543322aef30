import jax
import jax.numpy as jnp
from functools import partial


@partial(jax.jit, donate_argnums=0)
def sgd_step(params, x):
    grads = jax.grad(lambda p: jnp.mean(jnp.tanh(x @ p["w"]) ** 2))(params)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)


params = {"w": jnp.ones((32, 8))}
ema = jax.tree.map(jnp.copy, params)
for step in range(3):
    new_params = sgd_step(params, jnp.ones((16, 32)))
    # exponential moving average of the weights for evaluation
    ema = jax.tree.map(lambda e, p: 0.99 * e + 0.01 * p, ema, params)
    params = new_params
print(ema["w"][0, 0])

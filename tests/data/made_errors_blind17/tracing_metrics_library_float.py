import jax
import jax.numpy as jnp

import metriclib


@jax.jit
def eval_step(params, x, y):
    pred = x @ params
    metrics = metriclib.Tracker()
    metrics.update("mse", jnp.mean((pred - y) ** 2))
    return pred, metrics.summary()


print(eval_step(jnp.ones(4), jnp.ones((8, 4)), jnp.ones(8)))

import jax
import jax.numpy as jnp

from functools import partial

jax.config.update("jax_explain_cache_misses", True)

class TrainConfig:
    def __init__(self, lr, dropout):
        self.lr = lr
        self.dropout = dropout

@partial(jax.jit, static_argnames="config")
def sgd_step(w, g, config):
    return w - config.lr * g

w, g = jnp.ones((1024, 1024)), jnp.full((1024, 1024), 0.01)
for step in range(3):
    config = TrainConfig(lr=0.1, dropout=0.1)
    w = sgd_step(w, g, config=config)
    print(step, float(w[0, 0]))

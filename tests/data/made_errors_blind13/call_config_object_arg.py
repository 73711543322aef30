import jax
import jax.numpy as jnp


class Config:
    def __init__(self, lr, momentum):
        self.lr = lr
        self.momentum = momentum


@jax.jit
def sgd_step(params, grads, cfg):
    return jax.tree.map(lambda p, g: p - cfg.lr * g, params, grads)


params = {"w": jnp.ones(3)}
grads = {"w": jnp.full(3, 0.5)}
cfg = Config(lr=0.1, momentum=0.9)
params = sgd_step(params, grads, cfg)

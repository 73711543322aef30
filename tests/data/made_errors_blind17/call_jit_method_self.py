import jax
import jax.numpy as jnp


class Trainer:
    def __init__(self, lr):
        self.lr = lr
        self.w = jnp.zeros(4)

    @jax.jit
    def step(self, x, y):
        grads = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(self.w)
        return self.w - self.lr * grads


trainer = Trainer(0.1)
trainer.w = trainer.step(jnp.ones((8, 4)), jnp.ones(8))

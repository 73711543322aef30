import jax
import jax.numpy as jnp

class Model:
    def __init__(self):
        self.cache = None

    def __call__(self, x):
        self.cache = x + 1
        return x * 2

model = Model()
with jax.checking_leaks():
    jax.jit(model)(jnp.ones(3))

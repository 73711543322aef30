import jax
import jax.numpy as jnp
from flax import nnx


class Counter(nnx.Module):
    def __init__(self):
        self.total = nnx.Variable(jnp.zeros(()))
        self.linear = nnx.Linear(3, 1, rngs=nnx.Rngs(0))

    def __call__(self, x):
        self.total.value = self.total.value + x.sum()
        return self.linear(x)


model = Counter()


@jax.jit
def run(x):
    return model(x)


print(run(jnp.ones((2, 3))))

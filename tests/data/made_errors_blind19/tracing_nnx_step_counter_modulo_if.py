import jax
import jax.numpy as jnp
from flax import nnx


class EMAStats(nnx.Module):
    def __init__(self, dim):
        self.step = nnx.Variable(jnp.array(0))
        self.mean = nnx.Variable(jnp.zeros(dim))

    def __call__(self, x):
        self.step[...] = self.step[...] + 1
        # reset the running mean every 100 steps
        if self.step[...] % 100 == 0:
            self.mean[...] = jnp.zeros_like(self.mean[...])
        self.mean[...] = 0.99 * self.mean[...] + 0.01 * x.mean(0)
        return x - self.mean[...]


@nnx.jit
def normalise(stats, x):
    return stats(x)


stats = EMAStats(8)
print(normalise(stats, jnp.ones((32, 8))).shape)

import jax
import jax.numpy as jnp


class RunningStats:
    def __init__(self):
        self.mean = jnp.zeros(256)

stats = RunningStats()

@jax.jit
def normalize(x):
    stats.mean = 0.9 * stats.mean + 0.1 * x.mean(axis=0)
    return x - stats.mean

for step in range(2):
    y = normalize(jnp.ones((64, 256)))
print("running mean", stats.mean[:4])

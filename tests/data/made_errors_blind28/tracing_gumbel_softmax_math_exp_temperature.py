import jax
import jax.numpy as jnp
import math


@jax.jit
def gumbel_softmax(key, logits, step):
    # temperature annealed from 1.0 towards 0.5 as training goes on
    tau = max(0.5, math.exp(-1e-4 * step))
    g = jax.random.gumbel(key, logits.shape)
    return jax.nn.softmax((logits + g) / tau)


print(gumbel_softmax(jax.random.key(0), jnp.zeros((32, 10)), 1000).shape)

import jax
import jax.numpy as jnp

@jax.jit
def power_sum(x, n):
    total = 0.0
    for k in range(n):
        total = total + x**k
    return total

power_sum(2.0, 5)

import jax
import jax.numpy as jnp

@jax.jit
def relu_sum(x):
    if x.sum() > 0:
        return x.sum()
    return 0.0

print(relu_sum(jnp.arange(4.0)))

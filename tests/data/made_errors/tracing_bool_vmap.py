import jax
import jax.numpy as jnp

def clip(x):
    if x > 1.0:
        return 1.0
    return x

print(jax.vmap(clip)(jnp.linspace(0.0, 2.0, 5)))

import jax
import jax.numpy as jnp

@jax.jit
def outer(a, b):
    return a[:, None] * b[None, :]

a = jnp.ones((70000,), jnp.float32)
print(outer(a, a).shape)

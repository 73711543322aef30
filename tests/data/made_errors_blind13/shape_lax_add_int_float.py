import jax
import jax.numpy as jnp


def residual(x, step_index):
    return jax.lax.add(x, step_index)


h = jnp.ones(3)
for t in range(2):
    h = residual(h, jnp.full((3,), t))

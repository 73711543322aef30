import jax
import jax.numpy as jnp

@jax.jit
def pick(p, x):
    return jax.lax.cond(p, lambda v: v, lambda v: v[:2], x)

pick(True, jnp.ones(3))

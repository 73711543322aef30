import jax
import jax.numpy as jnp

def branch(x):
    return jax.lax.cond(x > 0, lambda v: v if v > 1 else -v, lambda v: v, x)

jax.jit(branch)(jnp.float32(2.0))

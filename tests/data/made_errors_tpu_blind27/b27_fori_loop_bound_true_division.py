import jax
import jax.numpy as jnp


num_steps = 100

@jax.jit
def warmup(params):
    return jax.lax.fori_loop(0, num_steps / 2, lambda i, p: p * 0.99, params)

print(warmup(jnp.ones((256,))).sum())

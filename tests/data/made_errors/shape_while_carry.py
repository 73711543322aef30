import jax
import jax.numpy as jnp

def body(c):
    return c.astype(jnp.float32) + 1

jax.lax.while_loop(lambda c: c < 10, body, jnp.int32(0))

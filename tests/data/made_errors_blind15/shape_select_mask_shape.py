import jax
import jax.numpy as jnp


@jax.jit
def masked_fill(scores, mask):
    return jax.lax.select(mask, scores, jnp.full_like(scores, -1e9))


scores = jnp.ones((2, 4, 4))
mask = jnp.tril(jnp.ones((4, 4), bool))
print(masked_fill(scores, mask))

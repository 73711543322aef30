import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)


@jax.jit
def attention(q, k, v, mask):
    scores = jnp.where(mask, q @ k.T / 8.0, -jnp.inf)
    return jax.nn.softmax(scores, axis=-1) @ v


q = k = v = jnp.ones((4, 64))
mask = jnp.array([[1, 0, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]], bool)  # a padded row
out = attention(q, k, v, mask)
print(out)

import jax
import jax.numpy as jnp


@jax.jit
def local_attention(q, k, v, window):
    # sliding-window attention: each query sees itself and the `window` keys before it
    t = q.shape[0]
    causal = jnp.tril(jnp.ones((t, t), dtype=bool))
    band = jnp.triu(jnp.ones((t, t), dtype=bool), k=-window)
    scores = jnp.where(causal & band, q @ k.T / jnp.sqrt(q.shape[-1]), -1e9)
    return jax.nn.softmax(scores) @ v


x = jnp.ones((128, 64))
print(local_attention(x, x, x, 16).shape)

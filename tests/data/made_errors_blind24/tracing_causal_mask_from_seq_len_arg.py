import jax
import jax.numpy as jnp


@jax.jit
def causal_attention(q, k, v, seq_len):
    mask = jnp.tril(jnp.ones((seq_len, seq_len), dtype=bool))
    scores = jnp.where(mask, q @ k.T / jnp.sqrt(q.shape[-1]), -1e9)
    return jax.nn.softmax(scores) @ v


x = jnp.ones((12, 32))
print(causal_attention(x, x, x, 12).shape)

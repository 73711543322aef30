import jax
import jax.numpy as jnp


def causal_attention(q, k, v):
    seq = q.shape[2]
    mask = jnp.tril(jnp.ones((seq, seq), bool))[None, None]
    return jax.nn.dot_product_attention(q, k, v, mask=mask)


# (batch, heads, seq, head_dim), the layout of the PyTorch port
q = k = v = jnp.ones((2, 8, 128, 64))
out = jax.jit(causal_attention)(q, k, v)

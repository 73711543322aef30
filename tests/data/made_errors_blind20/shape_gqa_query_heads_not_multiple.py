import jax
import jax.numpy as jnp


@jax.jit
def grouped_query_attention(q, k, v):
    # q (batch, seq, heads, dim); k and v share fewer heads
    return jax.nn.dot_product_attention(q, k, v, is_causal=True)


q = jnp.ones((2, 64, 12, 32))
kv = jnp.ones((2, 64, 8, 32))  # 8 key/value heads for 12 query heads
print(grouped_query_attention(q, kv, kv).shape)

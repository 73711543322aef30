import jax
import jax.numpy as jnp


def cross_attention(queries, memory, wk, wv):
    keys = memory @ wk
    values = memory @ wv
    return jax.nn.dot_product_attention(queries, keys, values)


B, T, S, N = 2, 16, 64, 4
queries = jnp.ones((B, T, N, 32))
memory = jnp.ones((B, S, N, 48))
out = jax.jit(cross_attention)(queries, memory, jnp.ones((48, 64)), jnp.ones((48, 32)))
print(out.shape)

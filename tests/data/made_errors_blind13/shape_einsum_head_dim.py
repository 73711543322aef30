import jax
import jax.numpy as jnp


def attention(q, k, v):
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(q.shape[-1])
    weights = jax.nn.softmax(scores, axis=-1)
    return jnp.einsum("bhqk,bhkd->bhqd", weights, v)


batch, heads, seq = 2, 4, 10
q = jnp.ones((batch, heads, seq, 16))
k = jnp.ones((batch, heads, seq, 32))
v = jnp.ones((batch, heads, seq, 32))
out = jax.jit(attention)(q, k, v)

import jax
import jax.numpy as jnp


def attention(q, k, v):
    scores = jnp.einsum("hqd,hkd->hqk", q, k) / jnp.sqrt(jnp.bfloat16(q.shape[-1]))
    return jnp.einsum("hqk,hkd->hqd", jax.nn.softmax(scores, axis=-1), v)

heads, seq_len, head_dim = 16, 32768, 128
q = k = v = jnp.ones((heads, seq_len, head_dim), jnp.bfloat16)
out = jax.jit(attention)(q, k, v)
print(out.shape)

import jax
import jax.numpy as jnp


def masked_attention(q, k, v, pad_mask):
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / q.shape[-1] ** 0.5
    scores = jnp.where(pad_mask, scores, -1e9)
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(scores), v)


q = k = v = jnp.ones((4, 8, 32, 16))
pad_mask = jnp.ones((4, 32), bool)  # batch x keys
print(jax.jit(masked_attention)(q, k, v, pad_mask).shape)

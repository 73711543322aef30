import jax
import jax.numpy as jnp


def encoder_attention(q, k, v, lengths):
    # mask padded key positions: True where the token is real
    mask = jnp.arange(q.shape[1])[None, :] < lengths[:, None]
    return jax.nn.dot_product_attention(q, k, v, mask=mask)


q = jnp.ones((2, 128, 8, 64))
print(jax.jit(encoder_attention)(q, q, q, jnp.array([100, 128])).shape)

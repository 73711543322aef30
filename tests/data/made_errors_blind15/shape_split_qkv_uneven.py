import jax
import jax.numpy as jnp


def self_attention(x, w_qkv):
    qkv = x @ w_qkv
    q, k, v = jnp.split(qkv, 3, axis=-1)
    weights = jax.nn.softmax(q @ k.T / jnp.sqrt(q.shape[-1]), axis=-1)
    return weights @ v


d_model = 64
w_qkv = jnp.ones((d_model, 2 * d_model))
out = jax.jit(self_attention)(jnp.ones((10, d_model)), w_qkv)

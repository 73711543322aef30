import jax
import jax.numpy as jnp
import flax.linen as nn


class TextEncoder(nn.Module):
    @nn.compact
    def __call__(self, tokens, padding_mask):
        x = nn.Embed(1000, 64)(tokens)
        attn = nn.MultiHeadDotProductAttention(num_heads=4, qkv_features=64)
        # padding_mask: (batch, seq), True where there is a real token
        return attn(x, mask=padding_mask)


tokens = jnp.ones((2, 10), jnp.int32)
mask = jnp.arange(10)[None, :] < jnp.array([[7], [10]])
variables = TextEncoder().init(jax.random.key(0), tokens, mask)
print(jax.tree.map(jnp.shape, variables))

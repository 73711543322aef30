import jax
import jax.numpy as jnp
import flax.linen as nn


class GPTEmbed(nn.Module):
    vocab: int = 1000
    max_len: int = 128
    dim: int = 64

    @nn.compact
    def __call__(self, tokens):
        tok = nn.Embed(self.vocab, self.dim)(tokens)
        pos = self.param("pos", nn.initializers.normal(0.02), (self.max_len, self.dim))
        return tok + pos[None]


tokens = jnp.zeros((4, 256), jnp.int32)  # the new data loader packs 256 tokens
params = GPTEmbed().init(jax.random.key(0), tokens)

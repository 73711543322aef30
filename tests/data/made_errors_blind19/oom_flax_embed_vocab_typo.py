import jax
import jax.numpy as jnp
import flax.linen as nn


class LanguageModel(nn.Module):
    vocab_size: int
    d_model: int = 4096

    @nn.compact
    def __call__(self, tokens):
        x = nn.Embed(self.vocab_size, self.d_model)(tokens)
        return nn.Dense(self.d_model)(x)


model = LanguageModel(vocab_size=32_000_000)  # meant 32k tokens
params = model.init(jax.random.key(0), jnp.zeros((1, 8), jnp.int32))
print(params["params"]["Embed_0"]["embedding"][0, :4])

import jax
import jax.numpy as jnp
import equinox as eqx


class EncoderLayer(eqx.Module):
    norm: eqx.nn.LayerNorm
    proj: eqx.nn.Linear

    def __init__(self, dim, key):
        self.norm = eqx.nn.LayerNorm(dim)
        self.proj = eqx.nn.Linear(dim, dim, key=key)

    def __call__(self, tokens):
        # tokens: (seq_len, dim), one example
        h = self.norm(tokens)
        return tokens + jax.vmap(self.proj)(h)


layer = EncoderLayer(64, jax.random.key(0))
print(jax.vmap(layer)(jnp.ones((8, 16, 64))).shape)

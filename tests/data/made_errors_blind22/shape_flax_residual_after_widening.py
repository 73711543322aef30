import jax
import jax.numpy as jnp
import flax.linen as nn


class Block(nn.Module):
    width: int

    @nn.compact
    def __call__(self, x):
        h = nn.Dense(self.width)(nn.LayerNorm()(x))
        return x + nn.gelu(h)


class Encoder(nn.Module):
    @nn.compact
    def __call__(self, x):
        for width in (256, 256, 512, 512):  # widen halfway through
            x = Block(width)(x)
        return x


x = jnp.ones((4, 16, 256))
variables = Encoder().init(jax.random.key(0), x)
print(jax.tree.map(jnp.shape, variables))

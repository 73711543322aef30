import jax
import jax.numpy as jnp
import flax.linen as nn


class PatchEmbed(nn.Module):
    dim: int = 192

    @nn.compact
    def __call__(self, patches):
        x = nn.Dense(self.dim)(patches)
        cls = self.param("cls", nn.initializers.zeros, (1, 1, self.dim))
        x = jnp.concatenate([cls, x], axis=1)
        pos = self.param("pos", nn.initializers.normal(0.02), (1, x.shape[1], self.dim))
        return x + pos


patches = jnp.ones((16, 196, 768))  # 16 images of 14x14 patches
variables = PatchEmbed().init(jax.random.key(0), patches)
print(jax.tree.map(jnp.shape, variables))

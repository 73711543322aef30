import jax
import jax.numpy as jnp
import flax.linen as nn


class MaskedEncoder(nn.Module):
    features: int = 8

    @nn.compact
    def __call__(self, x, mask):
        h = nn.Dense(self.features)(x)
        if mask.any():
            h = jnp.where(mask[:, None], h, 0.0)
        return nn.relu(h)


model = MaskedEncoder()
x = jnp.ones((4, 3))
mask = jnp.array([True, False, True, True])
variables = jax.jit(model.init)(jax.random.key(0), x, mask)
print(jax.tree.map(jnp.shape, variables))

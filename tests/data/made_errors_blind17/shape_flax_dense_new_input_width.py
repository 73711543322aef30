import jax
import jax.numpy as jnp
import flax.linen as nn


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(64)(x))
        return nn.Dense(10)(x)


model = MLP()
params = model.init(jax.random.key(0), jnp.ones((1, 28 * 28)))

# the new data loader keeps the colour channels
images = jnp.ones((32, 28 * 28 * 3))
logits = model.apply(params, images)

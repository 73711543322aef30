import jax
import jax.numpy as jnp
import flax.linen as nn


class Classifier(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(128)(x))
        return nn.Dense(10)(x)


SEED = 42
model = Classifier()
params = model.init(SEED, jnp.ones((1, 784)))
print(jax.tree.map(jnp.shape, params))

import jax
import jax.numpy as jnp
import flax.linen as nn


class Classifier(nn.Module):
    @nn.compact
    def __call__(self, x, train):
        x = nn.relu(nn.Dense(32)(x))
        x = nn.Dropout(0.2, deterministic=not train)(x)
        return nn.Dense(3)(x)


model = Classifier()
params = model.init(jax.random.key(0), jnp.ones((1, 8)), train=False)
logits = model.apply(params, jnp.ones((16, 8)), train=True)

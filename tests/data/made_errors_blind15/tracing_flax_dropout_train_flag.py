import jax
import jax.numpy as jnp
import flax.linen as nn


class Classifier(nn.Module):
    @nn.compact
    def __call__(self, x, train):
        x = nn.relu(nn.Dense(32)(x))
        x = nn.Dropout(0.1, deterministic=not train)(x)
        return nn.Dense(4)(x)


model = Classifier()
x = jnp.ones((8, 16))
params = model.init(jax.random.key(0), x, train=False)


@jax.jit
def forward(params, x, train, key):
    return model.apply(params, x, train, rngs={"dropout": key})


logits = forward(params, x, True, jax.random.key(1))

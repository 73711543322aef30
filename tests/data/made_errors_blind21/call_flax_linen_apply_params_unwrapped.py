import jax
import jax.numpy as jnp
import flax.linen as nn


class Classifier(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(10)(nn.relu(nn.Dense(128)(x)))


model = Classifier()
variables = model.init(jax.random.key(0), jnp.ones((1, 784)))
params = variables["params"]  # what the optimizer trains


@jax.jit
def predict(params, images):
    return model.apply(params, images).argmax(-1)


print(predict(params, jnp.ones((8, 784))))

# XLA_FLAGS extra: ''; env: {}
import jax
import jax.numpy as jnp
import optax
from flax import linen as nn


class SmallCNN(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Conv(8, (3, 3))(x))
        x = nn.avg_pool(x, (2, 2), (2, 2))
        x = nn.BatchNorm(use_running_average=True)(x)
        x = x.reshape((x.shape[0], -1))
        return nn.Dense(10)(nn.relu(nn.Dense(32)(x)))


model = SmallCNN()
images = jnp.ones((4, 16, 16, 1))
variables = model.init(jax.random.key(0), images)
optimizer = optax.adam(1e-3)
state = optimizer.init(variables["params"])


@jax.jit
def train_step(params, state, x, labels):
    def loss(p):
        logits = model.apply({**variables, "params": p}, x)
        return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()

    value, grads = jax.value_and_grad(loss)(params)
    updates, state = optimizer.update(grads, state, params)
    return optax.apply_updates(params, updates), state, value


train_step(variables["params"], state, images, jnp.zeros(4, jnp.int32))

import jax
import jax.numpy as jnp
import flax.linen as nn


class Net(nn.Module):
    @nn.compact
    def __call__(self, x, train: bool):
        x = nn.Dense(8)(x)
        x = nn.BatchNorm(use_running_average=not train)(x)
        return nn.relu(x)


model = Net()
x = jnp.ones((4, 3))
variables = model.init(jax.random.key(0), x, train=False)


def loss_fn(params):
    out = model.apply({"params": params, "batch_stats": variables["batch_stats"]}, x, train=True)
    return out.mean()


grads = jax.grad(loss_fn)(variables["params"])

import jax
import jax.numpy as jnp
import equinox as eqx


class Net(eqx.Module):
    layers: list
    dropout: eqx.nn.Dropout

    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.layers = [eqx.nn.Linear(8, 32, key=k1), eqx.nn.Linear(32, 1, key=k2)]
        self.dropout = eqx.nn.Dropout(0.1)

    def __call__(self, x, key=None):
        x = jax.nn.relu(self.layers[0](x))
        x = self.dropout(x, key=key)
        return self.layers[1](x)


@eqx.filter_value_and_grad
def loss(model, x, y):
    pred = jax.vmap(model)(x)
    return jnp.mean((pred[:, 0] - y) ** 2)


model = Net(jax.random.key(0))
value, grads = loss(model, jnp.ones((16, 8)), jnp.ones(16))

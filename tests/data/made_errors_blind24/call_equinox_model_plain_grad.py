import jax
import jax.numpy as jnp
import equinox as eqx


def loss_fn(model, x, y):
    pred = jax.vmap(model)(x)
    return jnp.mean((pred - y) ** 2)


model = eqx.nn.MLP(in_size=8, out_size=1, width_size=32, depth=2, key=jax.random.key(0))
x, y = jnp.ones((64, 8)), jnp.zeros((64, 1))
grads = jax.grad(loss_fn)(model, x, y)
print(grads.layers[0].weight.shape)

import jax
import jax.numpy as jnp


def loss_fn(state, x, y):
    pred = x @ state["w"] + state["b"]
    return jnp.mean((pred - y) ** 2)

state = {"w": jnp.zeros((128, 10)), "b": jnp.zeros((10,)), "step": jnp.array(0)}
x, y = jnp.ones((32, 128)), jnp.ones((32, 10))
grads = jax.grad(loss_fn)(state, x, y)
print(grads["w"].shape)

# XLA_FLAGS extra: ''; env: {}
import jax
import jax.numpy as jnp


def predict(params, x):
    hidden = jnp.tanh(x @ params["w_in"] + params["b_in"])
    return hidden @ params["w_out"] + params["b_out"]


def loss(params, x, y):
    return jnp.mean((predict(params, x) - y) ** 2)


@jax.jit
def step(params, x, y):
    value, grads = jax.value_and_grad(loss)(params, x, y)
    return value, jax.tree.map(lambda p, g: p - 0.05 * g, params, grads)


params = {
    "w_in": jnp.full((48, 128), 0.02),
    "b_in": jnp.zeros(128),
    "w_out": jnp.full((128, 4), 0.02),
    "b_out": jnp.arange(4.0) / 10,
}
step(params, jnp.ones((16, 48)), jnp.zeros((16, 4)))

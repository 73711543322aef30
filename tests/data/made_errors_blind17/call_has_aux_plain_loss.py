import jax
import jax.numpy as jnp


def loss_fn(w, x, y):
    pred = x @ w
    return jnp.mean((pred - y) ** 2)


grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
w = jnp.zeros(4)
x, y = jnp.ones((32, 4)), jnp.ones(32)
(loss, metrics), grads = grad_fn(w, x, y)

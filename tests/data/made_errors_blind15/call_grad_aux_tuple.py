import jax
import jax.numpy as jnp


def loss_with_metrics(w, x, y):
    pred = x @ w
    loss = jnp.mean((pred - y) ** 2)
    return loss, {"mae": jnp.mean(jnp.abs(pred - y))}


w = jnp.zeros(4)
x, y = jnp.ones((32, 4)), jnp.ones(32)
for step in range(3):
    grads = jax.grad(loss_with_metrics)(w, x, y)
    w = w - 0.1 * grads

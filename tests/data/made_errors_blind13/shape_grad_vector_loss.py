import jax
import jax.numpy as jnp


def per_example_loss(w, x, y):
    return (x @ w - y) ** 2


x = jnp.ones((8, 3))
y = jnp.linspace(0.0, 1.0, 8)
w = jnp.zeros(3)
for step in range(5):
    g = jax.grad(per_example_loss)(w, x, y)
    w = w - 0.1 * g

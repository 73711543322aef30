import jax
import jax.numpy as jnp


def loss_fn(w, x, y):
    pred = x @ w
    return (pred - y) ** 2

w = jnp.zeros((128,), jnp.float32)
x = jnp.ones((64, 128), jnp.float32)
y = jnp.ones((64,), jnp.float32)
grads = jax.grad(loss_fn)(w, x, y)
print(grads.shape)

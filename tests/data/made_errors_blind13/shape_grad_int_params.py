import jax
import jax.numpy as jnp


def loss(w, x):
    return jnp.sum((x * w - 1.0) ** 2)


w = jnp.arange(3)
x = jnp.ones(3)
g = jax.grad(loss)(w, x)
print(g)

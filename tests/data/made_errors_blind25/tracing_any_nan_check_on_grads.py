import jax
import jax.numpy as jnp


def loss_fn(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def train_step(w, x, y, lr=1e-2):
    g = jax.grad(loss_fn)(w, x, y)
    # skip the update when the batch blew up the gradients
    if any(jnp.isnan(g)):
        return w
    return w - lr * g


w = jnp.zeros(16)
print(train_step(w, jnp.ones((32, 16)), jnp.ones(32))[:4])

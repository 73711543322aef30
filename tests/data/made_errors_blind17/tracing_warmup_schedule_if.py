import jax
import jax.numpy as jnp


def learning_rate(step, base=1e-3, warmup=100):
    if step < warmup:
        return base * step / warmup
    return base


def loss_fn(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def train_step(w, x, y, step):
    grads = jax.grad(loss_fn)(w, x, y)
    return w - learning_rate(step) * grads


w = jnp.zeros(4)
x, y = jnp.ones((16, 4)), jnp.ones(16)
for step in range(3):
    w = train_step(w, x, y, step)

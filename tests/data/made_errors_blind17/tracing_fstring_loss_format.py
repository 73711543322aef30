import jax
import jax.numpy as jnp


def loss_fn(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def train_step(w, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(w, x, y)
    print(f"loss {loss:.4f}")
    return w - 0.1 * grads


w = train_step(jnp.zeros(4), jnp.ones((16, 4)), jnp.ones(16))

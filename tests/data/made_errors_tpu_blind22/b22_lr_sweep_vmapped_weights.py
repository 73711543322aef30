import jax
import jax.numpy as jnp


def train_step(lr, w, x):
    grad = jax.grad(lambda w: jnp.mean(jnp.tanh(x @ w) ** 2))(w)
    return w - lr * grad

learning_rates = jnp.logspace(-4, -1, 256)
w = jnp.full((4096, 4096), 1e-3)
x = jnp.ones((8192, 4096))
sweep = jax.jit(jax.vmap(train_step, in_axes=(0, None, None)))
new_ws = sweep(learning_rates, w, x)
print(new_ws.shape)

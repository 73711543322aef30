import jax
import jax.numpy as jnp

jax.config.update("jax_log_compiles", True)


@jax.jit
def train_step(w, xb):
    grad = jax.grad(lambda w: jnp.mean((xb @ w - 1.0) ** 2))(w)
    return w - 0.01 * grad


data = jnp.ones((1000, 8))
w = jnp.zeros(8)
for epoch in range(2):
    for i in range(0, 1000, 128):
        w = train_step(w, data[i : i + 128])
print(w)

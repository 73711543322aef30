import jax
import jax.numpy as jnp


@jax.jit
def train_step(w, x, y):
    loss, g = jax.value_and_grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
    print(f"loss {float(loss):.4f}")
    return w - 0.01 * g

w = train_step(jnp.zeros((128,)), jnp.ones((64, 128)), jnp.ones((64,)))
print(w.shape)

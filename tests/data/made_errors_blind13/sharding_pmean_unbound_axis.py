import jax
import jax.numpy as jnp


def local_loss(w, x):
    loss = jnp.mean((x @ w) ** 2)
    return jax.lax.pmean(loss, axis_name="batch")


w = jnp.ones(4)
x = jnp.ones((8, 4))
print(jax.jit(jax.value_and_grad(local_loss))(w, x))

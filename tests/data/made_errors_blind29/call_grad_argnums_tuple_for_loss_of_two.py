import jax
import jax.numpy as jnp


def loss(params, batch):
    x, y = batch
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


params = {"w": jnp.ones((8, 1)), "b": jnp.zeros(1)}
batch = (jnp.ones((32, 8)), jnp.ones((32, 1)))
# gradients for the weights and the bias, numbered like the pytree's leaves
grads = jax.grad(loss, argnums=(0, 1, 2))(params, batch)
print(grads)

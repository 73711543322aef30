import jax
import jax.numpy as jnp


def loss_fn(params, x, y):
    logits = x @ params["w"] + params["b"]
    return jnp.mean((logits - y) ** 2)

params = {"w": jnp.zeros((128, 10)), "b": jnp.zeros((10,))}
x, y = jnp.ones((32, 128)), jnp.ones((32, 10))
(loss, metrics), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
print(loss, metrics)

import jax
import jax.numpy as jnp


def head_loss(head, features, y):
    return jnp.mean((features @ head["w"] - y) ** 2)


params = {
    "encoder": {"w": jnp.ones((5, 3))},
    "head": {"w": jnp.zeros(3)},
}
x, y = jnp.ones((16, 5)), jnp.ones(16)
features = x @ params["encoder"]["w"]
grads = jax.grad(head_loss)(params["head"], features, y)
params = jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)

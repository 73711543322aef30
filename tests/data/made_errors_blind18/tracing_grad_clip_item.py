import jax
import jax.numpy as jnp
import optax


def clip_grads(grads, max_norm=1.0):
    norm = optax.global_norm(grads)
    if norm.item() > max_norm:
        grads = jax.tree.map(lambda g: g * max_norm / norm, grads)
    return grads


def loss_fn(params, x, y):
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


@jax.jit
def train_step(params, x, y):
    grads = clip_grads(jax.grad(loss_fn)(params, x, y))
    return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)


params = {"w": jnp.zeros(4), "b": jnp.zeros(())}
params = train_step(params, jnp.ones((16, 4)), jnp.ones(16))

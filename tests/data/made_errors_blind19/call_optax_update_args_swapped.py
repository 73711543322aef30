import jax
import jax.numpy as jnp
import optax


def loss_fn(params, x, y):
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


optimizer = optax.adamw(1e-3)
params = {"w": jnp.zeros((4, 1)), "b": jnp.zeros(1)}
opt_state = optimizer.init(params)


@jax.jit
def train_step(params, opt_state, x, y):
    grads = jax.grad(loss_fn)(params, x, y)
    updates, opt_state = optimizer.update(opt_state, grads, params)
    return optax.apply_updates(params, updates), opt_state


params, opt_state = train_step(params, opt_state, jnp.ones((8, 4)), jnp.ones((8, 1)))

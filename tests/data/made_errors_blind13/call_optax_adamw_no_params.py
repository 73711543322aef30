import jax
import jax.numpy as jnp
import optax


def loss_fn(p, x, y):
    return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)


opt = optax.adamw(1e-3, weight_decay=1e-4)


@jax.jit
def train_step(params, opt_state, x, y):
    grads = jax.grad(loss_fn)(params, x, y)
    updates, opt_state = opt.update(grads, opt_state)
    return optax.apply_updates(params, updates), opt_state


params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
opt_state = opt.init(params)
x, y = jnp.ones((16, 3)), jnp.ones(16)
for step in range(3):
    params, opt_state = train_step(params, opt_state, x, y)

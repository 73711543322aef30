import jax
import jax.numpy as jnp
import optax

optimizer = optax.adamw(1e-3, weight_decay=1e-4)
params = {"w": jnp.zeros((16, 4)), "b": jnp.zeros(4)}
opt_state = optimizer.init(params)


@jax.jit
def train_step(params, opt_state, x, y):
    grads = jax.grad(lambda p: optax.l2_loss(x @ p["w"] + p["b"], y).mean())(params)
    updates = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


params, opt_state = train_step(params, opt_state, jnp.ones((8, 16)), jnp.ones((8, 4)))
print(params["b"])

import jax
import jax.numpy as jnp
import optax


def step_decay(count):
    # halve the learning rate every 1000 steps
    return 1e-3 * 0.5 ** int(count // 1000)


tx = optax.sgd(learning_rate=step_decay)
params = {"w": jnp.ones((8, 2))}
opt_state = tx.init(params)


@jax.jit
def train_step(params, opt_state, x):
    grads = jax.grad(lambda p: jnp.mean((x @ p["w"]) ** 2))(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


params, opt_state = train_step(params, opt_state, jnp.ones((4, 8)))
print(params["w"][0])

import jax
import jax.numpy as jnp
import optax

params = {"encoder": jnp.ones((256, 256))}
tx = optax.adam(1e-3)
opt_state = tx.init(params)
params["head"] = jnp.ones((256, 10))

@jax.jit
def train_step(params, opt_state, x):
    grads = jax.grad(lambda p: jnp.mean((x @ p["encoder"] @ p["head"]) ** 2))(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state

params, opt_state = train_step(params, opt_state, jnp.ones((32, 256)))

import jax
import jax.numpy as jnp
import optax
from optax import contrib

optimizer = optax.chain(optax.adam(1e-3), contrib.reduce_on_plateau(patience=5))
params = {"w": jnp.ones((8, 8))}
opt_state = optimizer.init(params)


@jax.jit
def train_step(params, opt_state, x):
    loss, grads = jax.value_and_grad(lambda p: ((x @ p["w"]) ** 2).mean())(params)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


params, opt_state, loss = train_step(params, opt_state, jnp.ones((4, 8)))
print(loss)

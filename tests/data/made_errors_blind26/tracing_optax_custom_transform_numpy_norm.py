import jax
import jax.numpy as jnp
import numpy as np
import optax


def clip_by_global_norm_np(max_norm):
    def init_fn(params):
        return optax.EmptyState()

    def update_fn(updates, state, params=None):
        leaves = jax.tree.leaves(updates)
        norm = np.sqrt(sum(np.sum(np.square(g)) for g in leaves))
        scale = jnp.minimum(1.0, max_norm / norm)
        return jax.tree.map(lambda g: g * scale, updates), state

    return optax.GradientTransformation(init_fn, update_fn)


optimizer = optax.chain(clip_by_global_norm_np(1.0), optax.adam(1e-3))
params = {"w": jnp.ones((8, 8)), "b": jnp.zeros(8)}
opt_state = optimizer.init(params)


@jax.jit
def train_step(params, opt_state, x):
    grads = jax.grad(lambda p: jnp.mean((x @ p["w"] + p["b"]) ** 2))(params)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


params, opt_state = train_step(params, opt_state, jnp.ones((4, 8)))
print(params["b"][:3])

import jax
import jax.numpy as jnp
import numpy as np
import optax


@jax.jit
def train_step(params, grads):
    # clip at the 99th percentile of this step's gradient magnitudes
    flat = jnp.concatenate([jnp.ravel(g) for g in jax.tree.leaves(grads)])
    threshold = np.percentile(np.abs(flat), 99)
    grads = jax.tree.map(lambda g: jnp.clip(g, -threshold, threshold), grads)
    return optax.apply_updates(params, jax.tree.map(lambda g: -0.01 * g, grads))


params = {"w": jnp.ones((64, 64)), "b": jnp.zeros(64)}
print(train_step(params, params)["b"].shape)

import jax
import jax.numpy as jnp
import optax

params = {"w": jnp.zeros((8192, 8192)), "b": jnp.zeros(8192)}
# a long curvature history for the full-batch fine-tune
optimizer = optax.lbfgs(memory_size=200)
opt_state = optimizer.init(params)
print(jax.tree.map(jnp.shape, opt_state))

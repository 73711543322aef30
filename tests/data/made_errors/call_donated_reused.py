import jax
import jax.numpy as jnp

update = jax.jit(lambda p: p - 0.1, donate_argnums=0)
params = jnp.ones(4)
new = update(params)
print(params.sum())

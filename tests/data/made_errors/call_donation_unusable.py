import jax
import jax.numpy as jnp

total = jax.jit(lambda p: p.sum(), donate_argnums=0)
total(jnp.ones((128, 128)))

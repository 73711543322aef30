import jax
import jax.numpy as jnp

compiled = jax.jit(jnp.sin).lower(jnp.ones(3)).compile()
compiled(jnp.ones(4))

import jax
import jax.numpy as jnp

m = jnp.arange(16.0).reshape(4, 4)
print(jnp.linalg.eig(m))

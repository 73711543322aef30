import jax
import jax.numpy as jnp

from jax import export

exp = export.export(jax.jit(jnp.linalg.eig), platforms=["cuda"])(jnp.eye(3))

import jax
import jax.numpy as jnp

from jax import export

exp = export.export(jax.jit(jnp.linalg.eig), platforms=["tpu"])(jnp.ones((4, 4)))

import jax
import jax.numpy as jnp

from jax import export

exp = export.export(jax.jit(jnp.sin), platforms=["tpu"])(jnp.ones(3))
exp.call(jnp.ones(3))

import jax
import jax.numpy as jnp
from jax import export


def propagator(generator, t):
    # the matrix exponential through a general matrix function
    return jax.scipy.linalg.funm(generator * t, jnp.exp)


exp = export.export(jax.jit(propagator), platforms=["tpu"])(jnp.eye(4), 0.5)

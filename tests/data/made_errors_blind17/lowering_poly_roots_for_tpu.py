import jax
import jax.numpy as jnp
from jax import export


def filter_poles(coeffs):
    poles = jnp.roots(coeffs, strip_zeros=False)
    return jnp.max(jnp.abs(poles))


exp = export.export(jax.jit(filter_poles), platforms=["tpu"])(jnp.array([1.0, -0.5, 0.2]))

import jax
import jax.numpy as jnp
import jax.scipy.linalg
from jax import export

exp = export.export(jax.jit(jax.scipy.linalg.hessenberg), platforms=["tpu"])(jnp.eye(4))

import jax
import jax.numpy as jnp
from jax import export


def companion_reduce(a):
    # reduce the state matrix before the shifted QR iterations
    h, _ = jax.lax.linalg.hessenberg(a)
    return h


exp = export.export(jax.jit(companion_reduce), platforms=["cuda"])(jnp.eye(6))

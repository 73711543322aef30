import jax
import jax.numpy as jnp
from jax import export


def stationary_distribution(transition):
    # the left eigenvector of the transition matrix for eigenvalue 1
    w, v = jnp.linalg.eig(transition.T)
    i = jnp.argmin(jnp.abs(w - 1.0))
    p = jnp.real(v[:, i])
    return p / p.sum()


# one artifact for the TPU serving fleet and its CPU fallback
exp = export.export(jax.jit(stationary_distribution), platforms=["cpu", "tpu"])(
    jax.ShapeDtypeStruct((16, 16), jnp.float32))
print(exp.platforms)

import jax
import jax.numpy as jnp
from jax.lax.linalg import SvdAlgorithm, svd


@jax.jit
def whiten(features):
    # the accurate one-sided Jacobi SVD, as the paper's reference code asks
    centred = features - features.mean(axis=0)
    u, s, vt = svd(centred, full_matrices=False, algorithm=SvdAlgorithm.JACOBI)
    return centred @ vt.T / s


print(whiten(jnp.ones((128, 16)) + jnp.arange(16.0)).shape)

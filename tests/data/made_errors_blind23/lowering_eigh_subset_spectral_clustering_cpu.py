import jax
import jax.numpy as jnp


@jax.jit
def spectral_embedding(affinity, k=4):
    degree = affinity.sum(axis=1)
    d = 1.0 / jnp.sqrt(degree)
    laplacian = jnp.eye(affinity.shape[0]) - d[:, None] * affinity * d[None, :]
    # only the k smallest eigenpairs are needed
    _, vectors = jax.lax.linalg.eigh(laplacian, subset_by_index=(0, k))
    return vectors


print(spectral_embedding(jnp.ones((64, 64))).shape)

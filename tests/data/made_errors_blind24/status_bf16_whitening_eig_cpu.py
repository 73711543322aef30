import jax
import jax.numpy as jnp


def whitening_spectrum(features):
    cov = features.T @ features / features.shape[0]
    return jnp.linalg.eigvals(cov)


print(whitening_spectrum(jnp.ones((128, 16), jnp.bfloat16))[:3])

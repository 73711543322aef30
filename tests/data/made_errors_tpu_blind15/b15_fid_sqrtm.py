import jax
import jax.numpy as jnp

from jax.scipy.linalg import sqrtm

def frechet_distance(mu1, cov1, mu2, cov2):
    covmean = sqrtm(cov1 @ cov2)
    return jnp.sum((mu1 - mu2) ** 2) + jnp.trace(cov1 + cov2 - 2 * covmean.real)

feats1 = jax.random.normal(jax.random.key(0), (512, 64))
feats2 = jax.random.normal(jax.random.key(1), (512, 64))
print(frechet_distance(feats1.mean(0), jnp.cov(feats1.T), feats2.mean(0), jnp.cov(feats2.T)))

import jax
import jax.numpy as jnp


@jax.jit
def mahalanobis(x, mean, cov):
    precision = jnp.linalg.inv(cov)
    d = x - mean
    return jnp.einsum("ni,ij,nj->n", d, precision, d)


features = jnp.ones((256, 32), jnp.float16)  # cached in half precision
cov = jnp.cov(features, rowvar=False) + jnp.eye(32, dtype=jnp.float16)
print(mahalanobis(features, features.mean(0), cov)[:4])

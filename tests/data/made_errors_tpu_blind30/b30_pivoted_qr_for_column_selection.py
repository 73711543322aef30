import jax
import jax.numpy as jnp

import jax.scipy.linalg

features = jax.random.normal(jax.random.key(0), (2048, 256))
q, r, columns = jax.scipy.linalg.qr(features, mode="economic", pivoting=True)
print("most independent columns", columns[:16])

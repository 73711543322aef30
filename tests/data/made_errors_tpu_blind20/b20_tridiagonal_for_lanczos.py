import jax
import jax.numpy as jnp

from jax.lax.linalg import tridiagonal

a = jax.random.normal(jax.random.key(0), (128, 128))
a = (a + a.T) / 2
t, d, e, taus = tridiagonal(a)
print(d[:4], e[:4])

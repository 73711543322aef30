import jax
import jax.numpy as jnp

from jax.scipy.linalg import hessenberg

a = jax.random.normal(jax.random.key(0), (64, 64))
h, q = hessenberg(a, calc_q=True)
print(jnp.abs(q @ h @ q.T - a).max())

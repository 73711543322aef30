import jax
import jax.numpy as jnp

from jax.experimental import sparse

@jax.jit
def pruned_matmul(w, x):
    w = jnp.where(jnp.abs(w) > 0.5, w, 0.0)
    w_sparse = sparse.BCOO.fromdense(w)
    return w_sparse @ x

w = jax.random.normal(jax.random.key(0), (512, 512))
print(pruned_matmul(w, jnp.ones((512, 64))).shape)

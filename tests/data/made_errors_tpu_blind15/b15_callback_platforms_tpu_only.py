import jax
import jax.numpy as jnp
import numpy as np

def host_rank(x):
    return np.argsort(np.argsort(np.asarray(x))) / len(x)

@jax.jit
def rank_normalise(x):
    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)
    return jax.pure_callback(host_rank, out, x)

print(rank_normalise(jnp.linspace(0.0, 1.0, 128)))

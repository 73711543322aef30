import jax
import jax.numpy as jnp
import numpy as np

def host_median(x):
    return np.median(np.asarray(x)).astype(np.float32)

def robust_center(x):
    median = jax.pure_callback(host_median, jax.ShapeDtypeStruct((), jnp.float32), x)
    return x - median

batch = jnp.ones((16, 1024), jnp.float32)
print(jax.vmap(robust_center)(batch).shape)

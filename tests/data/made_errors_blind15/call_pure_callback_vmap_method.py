import jax
import jax.numpy as jnp
import numpy as np


def host_median(x):
    return np.median(np.asarray(x)).astype(np.float32)


def robust_center(x):
    med = jax.pure_callback(host_median, jax.ShapeDtypeStruct((), jnp.float32), x)
    return x - med


batch = jnp.arange(12.0).reshape(3, 4)
print(jax.vmap(robust_center)(batch))

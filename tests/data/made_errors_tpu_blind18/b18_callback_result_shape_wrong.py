import jax
import jax.numpy as jnp
import numpy as np

def host_percentiles(x):
    return np.percentile(np.asarray(x), [5, 95]).astype(np.float32)

@jax.jit
def robust_scale(x):
    q = jax.pure_callback(host_percentiles, jax.ShapeDtypeStruct((3,), jnp.float32), x)
    return (x - q[1]) / (q[2] - q[0])

print(robust_scale(jnp.linspace(0.0, 1.0, 1000)))

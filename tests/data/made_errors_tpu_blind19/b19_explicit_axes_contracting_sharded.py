import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
from jax.sharding import AxisType

mesh = jax.make_mesh((jax.device_count(),), ("model",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)
x = jax.device_put(jnp.ones((64, 512)), P(None, "model"))
w = jax.device_put(jnp.ones((512, 256)), P("model", None))

@jax.jit
def dense(x, w):
    return jnp.tanh(x @ w)

print(dense(x, w).shape)

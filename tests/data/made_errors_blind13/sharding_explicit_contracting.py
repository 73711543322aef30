import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Explicit, AxisType.Explicit))
jax.set_mesh(mesh)
x = jax.device_put(jnp.ones((8, 16)), P("data", "model"))
w = jax.device_put(jnp.ones((16, 4)), P("data", None))


@jax.jit
def dense(x, w):
    return x @ w


y = dense(x, w)

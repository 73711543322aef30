import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)
x = jax.device_put(jnp.ones((8, 8)), P("data", None))
bias = jax.device_put(jnp.ones((8, 8)), P(None, "data"))


@jax.jit
def add_bias(x, bias):
    return x + bias


print(add_bias(x, bias))

import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def mlp_up(x, w_up):
    return jax.nn.gelu(x @ w_up)


x = jax.device_put(jnp.ones((64, 512)), P("data", None))
# FSDP: every weight split over the same devices, here along its output columns
w_up = jax.device_put(jnp.ones((512, 2048)) * 0.01, P(None, "data"))
print(mlp_up(x, w_up).shape)

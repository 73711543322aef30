import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("seq",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def positions_from_mask(mask):
    # position ids of packed sequences: running count of real tokens
    return jnp.cumsum(mask, axis=1) - 1


mask = jax.device_put(jnp.ones((4, 2048), jnp.int32), P(None, "seq"))
print(positions_from_mask(mask).shape)

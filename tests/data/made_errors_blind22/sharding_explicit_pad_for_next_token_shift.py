import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("seq",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def shifted_inputs(tokens):
    # decoder inputs: a BOS token in front, the sequence split over devices
    return jnp.pad(tokens, ((0, 0), (1, 0)), constant_values=1)


tokens = jax.device_put(jnp.zeros((4, 2048), jnp.int32), NamedSharding(mesh, P(None, "seq")))
print(shifted_inputs(tokens).shape)

import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("seq",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def lm_targets(tokens):
    # sequence parallelism: the sequence axis is split over the devices
    targets = jnp.roll(tokens, -1, axis=1)
    return targets.at[:, -1].set(0)


tokens = jax.device_put(jnp.ones((4, 1024), jnp.int32), P(None, "seq"))
print(lm_targets(tokens).shape)

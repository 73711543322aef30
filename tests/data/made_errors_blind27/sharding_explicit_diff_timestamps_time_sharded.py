import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("seq",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def event_features(timestamps, values):
    # irregularly sampled sensor log, its long time axis split over the devices
    dt = jnp.diff(timestamps)
    rate = jnp.diff(values) / jnp.maximum(dt, 1e-3)
    return jnp.stack([dt, rate], axis=-1)


t = jax.device_put(jnp.cumsum(jnp.ones(1 << 16)), P("seq"))
print(event_features(t, t * 2.0).shape)

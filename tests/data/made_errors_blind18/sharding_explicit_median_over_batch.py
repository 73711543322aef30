import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def robust_normalise(features):
    # the median over the batch is robust to outliers
    centre = jnp.median(features, axis=0)
    return features - centre


features = jax.device_put(jnp.ones((64, 16)), P("data"))
print(robust_normalise(features).shape)

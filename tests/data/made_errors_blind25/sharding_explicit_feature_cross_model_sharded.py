import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)


@jax.jit
def feature_cross(features, w):
    # DLRM-style pairwise interactions of the (model-sharded) dense features
    pairs = features[:, :, None] * features[:, None, :]
    return pairs.reshape(features.shape[0], -1) @ w


features = jax.device_put(jnp.ones((64, 128)), P("data", "model"))
w = jax.device_put(jnp.ones((128 * 128, 8)), P())
print(feature_cross(features, w).shape)

import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("model",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)

# BERT-base: 12 heads, split over the 8 devices for tensor parallelism
q = jnp.ones((4, 12, 128, 64))
q = jax.sharding.reshard(q, P(None, "model"))
print(q.sharding)

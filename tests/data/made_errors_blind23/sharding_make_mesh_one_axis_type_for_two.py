import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

# 4-way data parallel x 2-way tensor parallel, explicit sharding
mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)
w = jnp.zeros((512, 1024), out_sharding=P(None, "model"))
print(w.sharding)

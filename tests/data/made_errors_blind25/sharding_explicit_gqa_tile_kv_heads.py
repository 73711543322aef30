import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)


@jax.jit
def gqa_scores(q, k):
    # grouped-query attention: 32 query heads share 8 key heads
    groups = q.shape[2] // k.shape[2]
    k = jnp.tile(k, (1, 1, groups, 1))
    return jnp.einsum("bqhd,bkhd->bhqk", q, k)


q = jax.device_put(jnp.ones((8, 128, 32, 64)), P("data", None, "model", None))
k = jax.device_put(jnp.ones((8, 128, 8, 64)), P("data", None, "model", None))
print(gqa_scores(q, k).shape)

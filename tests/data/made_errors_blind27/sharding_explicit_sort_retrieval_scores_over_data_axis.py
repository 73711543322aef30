import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def rank_candidates(query, candidates):
    scores = candidates @ query
    return jnp.argsort(-scores)[:100]


candidates = jax.device_put(jnp.ones((65536, 64)), P("data", None))
print(rank_candidates(jnp.ones(64), candidates).shape)

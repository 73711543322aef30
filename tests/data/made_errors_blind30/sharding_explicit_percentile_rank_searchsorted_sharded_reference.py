import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def percentile_rank(reference_sorted, queries):
    # where each new score falls among a million reference scores
    return jnp.searchsorted(reference_sorted, queries) / reference_sorted.shape[0]


reference = jax.device_put(jnp.linspace(0.0, 1.0, 1_048_576), P("data"))
queries = jax.device_put(jnp.linspace(0.0, 1.0, 64), P("data"))
print(percentile_rank(reference, queries)[:4])

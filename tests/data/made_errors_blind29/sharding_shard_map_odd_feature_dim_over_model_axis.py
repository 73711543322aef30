import jax
import jax.numpy as jnp
from functools import partial

from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "model"))


@partial(jax.shard_map, mesh=mesh, in_specs=(P("data", "model"), P("model", None)),
         out_specs=P("data", None))
def row_parallel_dense(x, w):
    return jax.lax.psum(x @ w, "model")


x = jnp.ones((16, 1022))  # a vocabulary-sized feature dimension
print(row_parallel_dense(x, jnp.ones((1022, 64))).shape)

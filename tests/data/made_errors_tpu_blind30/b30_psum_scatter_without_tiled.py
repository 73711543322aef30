import jax
import jax.numpy as jnp

from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("data",))

def shard_gradients(grads):
    return jax.lax.psum_scatter(grads, "data", scatter_dimension=0)

reduce_grads = jax.shard_map(shard_gradients, mesh=mesh, in_specs=P(), out_specs=P("data"))
print(reduce_grads(jnp.ones((1024, 256))).shape)

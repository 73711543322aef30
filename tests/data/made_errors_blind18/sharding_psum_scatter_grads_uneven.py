import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


def sync_grads(local_grads):
    # ZeRO: each device keeps the summed slice of the gradient it owns
    return jax.lax.psum_scatter(local_grads, "data", scatter_dimension=0, tiled=True)


sync = jax.shard_map(sync_grads, mesh=mesh, in_specs=P(), out_specs=P("data"))
grads = jnp.ones((100, 32))  # 100 rows of the embedding gradient
print(jax.jit(sync)(grads).shape)

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("data",))

def local_loss(x):
    return jax.lax.psum(jnp.sum(x ** 2), "data")

loss_fn = jax.shard_map(local_loss, mesh=mesh, in_specs=P("data"), out_specs=P(),
                        check_rep=False)
print(loss_fn(jnp.ones((1024,))))

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


@jax.jit
def dropout_per_shard(x, key):
    # a different dropout mask on each data-parallel shard
    key = jax.random.fold_in(key, jax.lax.axis_index("data"))
    keep = jax.random.bernoulli(key, 0.9, x.shape)
    return jnp.where(keep, x / 0.9, 0.0)


x = jax.device_put(jnp.ones((64, 128)), NamedSharding(mesh, P("data")))
print(dropout_per_shard(x, jax.random.key(0)).shape)

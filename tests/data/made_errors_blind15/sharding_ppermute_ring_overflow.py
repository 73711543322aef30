import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("ring",))
n = 8


def pass_right(block):
    return jax.lax.ppermute(block, "ring", perm=[(i, i + 1) for i in range(n)])


f = jax.shard_map(pass_right, mesh=mesh, in_specs=P("ring"), out_specs=P("ring"))
x = jax.device_put(jnp.arange(16.0), NamedSharding(mesh, P("ring")))
print(jax.jit(f)(x))

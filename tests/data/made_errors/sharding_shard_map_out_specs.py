import jax
import jax.numpy as jnp

from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",))

def local_sum(a):
    return a.sum(keepdims=True)

f = jax.shard_map(local_sum, mesh=mesh, in_specs=P("x"), out_specs=P())
x = jax.device_put(jnp.arange(16.0), NamedSharding(mesh, P("x")))
jax.jit(f)(x)

import jax
import jax.numpy as jnp

from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("ring",))

def pass_right(x):
    return jax.lax.ppermute(x, "ring", perm=[(i, (i + 1) % 8) for i in range(8)])

ring_step = jax.jit(jax.shard_map(pass_right, mesh=mesh, in_specs=P("ring"), out_specs=P("ring")))
x = jax.device_put(jnp.ones((1024,)), NamedSharding(mesh, P("ring")))
print(ring_step(x).sum())

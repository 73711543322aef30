import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "seq"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)


@jax.jit
def write_kv(cache, new_kv, pos):
    # decode step: write this token's keys into the sequence-sharded cache
    return jax.lax.dynamic_update_slice(cache, new_kv, (0, pos, 0))


cache = jax.device_put(jnp.zeros((8, 1024, 64)), P("data", "seq"))
new_kv = jax.device_put(jnp.ones((8, 1, 64)), P("data"))
print(write_kv(cache, new_kv, 17).sharding)

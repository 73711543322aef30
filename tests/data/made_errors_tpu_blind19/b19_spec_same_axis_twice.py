import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("data",))
w = jnp.ones((4096, 4096), jnp.float32)
w_sharded = jax.device_put(w, NamedSharding(mesh, P("data", "data")))
print(w_sharded.sharding)

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("data",))
offload = NamedSharding(mesh, P(), memory_kind="host")
opt_state = jax.device_put(jnp.zeros((4096, 4096)), offload)
print(opt_state.sharding)

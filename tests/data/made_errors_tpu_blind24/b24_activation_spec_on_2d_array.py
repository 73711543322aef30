import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
from jax.sharding import NamedSharding

mesh = jax.make_mesh((jax.device_count(),), ("data",))
act_sharding = NamedSharding(mesh, P("data", None, None))  # (batch, seq, hidden)
pooled = jnp.ones((64, 768), jnp.float32)
pooled = jax.device_put(pooled, act_sharding)
print(pooled.sharding)

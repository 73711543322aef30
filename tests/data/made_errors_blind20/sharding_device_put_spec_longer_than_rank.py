import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))
# the spec written for the (batch, seq, hidden) activations, reused for the (batch, hidden) pooled
pooled = jnp.ones((64, 512))
pooled = jax.device_put(pooled, NamedSharding(mesh, P("data", None, "model")))
print(pooled.sharding)

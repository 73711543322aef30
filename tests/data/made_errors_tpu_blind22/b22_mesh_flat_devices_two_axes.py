import jax
import jax.numpy as jnp

from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(jax.devices(), ("data", "model"))
weights = jax.device_put(jnp.ones((1024, 1024)), NamedSharding(mesh, P("data", "model")))
print(weights.sharding)

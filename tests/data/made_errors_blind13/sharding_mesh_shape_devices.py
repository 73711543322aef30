import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 4), ("data", "model"))
params = jax.device_put(jnp.ones((16, 16)), NamedSharding(mesh, P(None, "model")))

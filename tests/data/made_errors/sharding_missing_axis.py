import jax
import jax.numpy as jnp

from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))
x = jax.device_put(jnp.ones((8, 8)), NamedSharding(mesh, P("batch", None)))

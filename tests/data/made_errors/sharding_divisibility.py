import jax
import jax.numpy as jnp

from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",))
x = jax.device_put(jnp.ones((6, 4)), NamedSharding(mesh, P("x")))

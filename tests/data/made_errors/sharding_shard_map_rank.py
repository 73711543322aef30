import jax
import jax.numpy as jnp

from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("x", "y"))
f = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))
f(jnp.ones(8))

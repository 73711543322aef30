import jax
import jax.numpy as jnp

from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",))
f = jax.shard_map(
    lambda a: jax.lax.psum(a, "batch"), mesh=mesh, in_specs=P("x"), out_specs=P()
)
f(jnp.ones(8))

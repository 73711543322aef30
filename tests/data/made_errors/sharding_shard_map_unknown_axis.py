import jax
import jax.numpy as jnp

from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",))
f = jax.shard_map(
    lambda a: jax.lax.all_gather(a, "batch"), mesh=mesh, in_specs=P("x"), out_specs=P("x")
)
f(jax.device_put(jnp.ones(8), NamedSharding(mesh, P("x"))))

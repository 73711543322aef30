import jax
import jax.numpy as jnp

from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",))
s = NamedSharding(mesh, P("x"))
f = jax.jit(lambda a: a * 2, in_shardings=(s, s))
f(jnp.ones(8))

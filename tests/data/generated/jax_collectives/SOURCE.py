# XLA_FLAGS extra: '--xla_force_host_platform_device_count=8'; env: {}
from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("rows", "cols"))
shard_map = getattr(jax, "shard_map", None)
if shard_map is None:  # jax before 0.6 keeps it in experimental
    from jax.experimental.shard_map import shard_map


@jax.jit
@partial(shard_map, mesh=mesh, in_specs=(P("rows", "cols"),), out_specs=P("rows", "cols"))
def talk(x):
    total = jax.lax.psum(x, "cols")
    gathered = jax.lax.all_gather(x, "rows", tiled=True, axis=0)[: x.shape[0]]
    shifted = jax.lax.ppermute(x, "cols", [(i, (i + 1) % 4) for i in range(4)])
    repeated = jnp.concatenate([x] * 4, 1)
    scattered = jax.lax.psum_scatter(repeated, "cols", scatter_dimension=1, tiled=True)
    swapped = jax.lax.all_to_all(x, "cols", 1, 1, tiled=True)
    return total + gathered + shifted + scattered + swapped


talk(jax.device_put(jnp.ones((8, 16)), NamedSharding(mesh, P("rows", "cols"))))


@jax.jit
def sharded(w, x):
    return jax.nn.relu(x @ w).mean(0)


w = jax.device_put(jnp.ones((32, 16)), NamedSharding(mesh, P(None, "cols")))
x = jax.device_put(jnp.ones((8, 32)), NamedSharding(mesh, P("rows", None)))
sharded(w, x)

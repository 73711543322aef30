import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


def local_loss(w, xb):
    return jax.lax.pmean(jnp.mean((xb @ w) ** 2), "data")


loss = jax.jit(jax.shard_map(local_loss, mesh=mesh, in_specs=(P(), P("data")), out_specs=P()))
w = jnp.ones(4)
last_batch = jnp.ones((60, 4))
print(loss(w, last_batch))

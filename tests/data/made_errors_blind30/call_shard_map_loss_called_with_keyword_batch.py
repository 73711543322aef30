import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


def local_loss(w, batch):
    x, y = batch
    return jax.lax.pmean(jnp.mean((x @ w - y) ** 2), "data")


loss = jax.shard_map(local_loss, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())
batch = (jnp.ones((64, 16)), jnp.ones(64))
print(loss(jnp.ones(16), batch=batch))

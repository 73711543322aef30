import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("data",))

def per_shard_loss(w, x):
    return jnp.mean((x @ w) ** 2)

loss_fn = jax.shard_map(per_shard_loss, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())
print(jax.jit(loss_fn)(jnp.ones((128, 16)), jnp.ones((64, 128))))

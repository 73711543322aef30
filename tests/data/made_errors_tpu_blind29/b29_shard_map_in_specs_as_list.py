import jax
import jax.numpy as jnp

from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("data",))

def forward(x, w):
    return jnp.tanh(x @ w)

sharded = jax.shard_map(forward, mesh=mesh, in_specs=[P("data"), P()], out_specs=P("data"))
out = sharded(jnp.ones((64, 128)), jnp.ones((128, 10)))
print(out.shape)

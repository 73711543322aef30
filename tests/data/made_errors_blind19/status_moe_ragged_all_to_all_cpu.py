import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("expert",))
TOKENS = 16  # per device


def dispatch(tokens, output, input_offsets, send_sizes, output_offsets, recv_sizes):
    # mixture of experts: send each device's tokens to the devices holding their experts
    return jax.lax.ragged_all_to_all(tokens, output, input_offsets, send_sizes,
                                     output_offsets, recv_sizes, axis_name="expert")


sharded = NamedSharding(mesh, P("expert"))
n = 8 * TOKENS
tokens = jax.device_put(jnp.ones((n, 32)), sharded)
output = jax.device_put(jnp.zeros((n, 32)), sharded)
offsets = jax.device_put(jnp.tile(jnp.arange(8, dtype=jnp.int32) * 2, 8), sharded)
sizes = jax.device_put(jnp.full((64,), 2, jnp.int32), sharded)
dispatch_sharded = jax.shard_map(dispatch, mesh=mesh, in_specs=P("expert"), out_specs=P("expert"))
moe_dispatch = jax.jit(dispatch_sharded)
print(moe_dispatch(tokens, output, offsets, sizes, offsets, sizes).shape)

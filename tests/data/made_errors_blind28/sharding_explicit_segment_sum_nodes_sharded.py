import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def message_passing(node_feats, senders, receivers):
    messages = node_feats[senders]
    return jax.ops.segment_sum(messages, receivers, num_segments=node_feats.shape[0])


nodes = jax.device_put(jnp.ones((4096, 32)), P("data"))
edges = jax.device_put(jnp.arange(16384) % 4096, P("data"))
print(message_passing(nodes, edges, edges[::-1]).shape)

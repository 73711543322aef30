import jax
import jax.numpy as jnp


def message_passing(node_feats, senders, receivers, w):
    messages = node_feats[senders] @ w
    # aggregate the messages at the receiving nodes
    return jax.ops.segment_sum(messages, receivers[:-1], num_segments=node_feats.shape[0])


nodes = jnp.ones((10, 8))
senders = jnp.array([0, 1, 2, 3, 4, 5])
receivers = jnp.array([1, 2, 3, 4, 5, 6])
print(jax.jit(message_passing)(nodes, senders, receivers, jnp.eye(8)).shape)

import jax
import jax.numpy as jnp


@jax.jit
def graph_readout(node_feats, graph_ids):
    # a batch of molecules packed into one big graph: sum the atoms of each molecule
    num_graphs = graph_ids.max() + 1
    return jax.ops.segment_sum(node_feats, graph_ids, num_segments=num_graphs)


graph_ids = jnp.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
print(graph_readout(jnp.ones((9, 16)), graph_ids).shape)

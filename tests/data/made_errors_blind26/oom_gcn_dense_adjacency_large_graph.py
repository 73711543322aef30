import jax
import jax.numpy as jnp

num_nodes = 2_449_029  # ogbn-products
src = jnp.arange(0, 1_000_000)
dst = (src * 7 + 3) % num_nodes


def normalized_adjacency(src, dst, n):
    # the GCN propagation matrix, built dense
    adj = jnp.zeros((n, n), jnp.float32).at[src, dst].set(1.0)
    deg = adj.sum(axis=1)
    return adj / jnp.maximum(deg, 1.0)[:, None]


a_hat = normalized_adjacency(src, dst, num_nodes)
print(a_hat.shape)

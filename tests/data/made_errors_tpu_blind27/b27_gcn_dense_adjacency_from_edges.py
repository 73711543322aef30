import jax
import jax.numpy as jnp


@jax.jit
def gcn_layer(features, src, dst, w):
    n = features.shape[0]
    adjacency = jnp.zeros((n, n), jnp.float32).at[src, dst].set(1.0)
    return jax.nn.relu(adjacency @ features @ w)

features = jnp.ones((70000, 128), jnp.float32)
src = jnp.arange(1000000, dtype=jnp.int32) % 70000
dst = (src * 7 + 1) % 70000
out = gcn_layer(features, src, dst, jnp.ones((128, 64), jnp.float32))
print(out.shape)

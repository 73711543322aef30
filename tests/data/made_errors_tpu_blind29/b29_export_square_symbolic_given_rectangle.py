import jax
import jax.numpy as jnp

from jax import export

def normalize_adjacency(adj):
    deg = jnp.sum(adj, axis=1) + 1.0
    return adj / jnp.sqrt(deg[:, None] * deg[None, :])

n, = export.symbolic_shape("n")
exported = export.export(jax.jit(normalize_adjacency))(jax.ShapeDtypeStruct((n, n), jnp.float32))
user_item = jnp.ones((32, 64), jnp.float32)
out = exported.call(user_item)
print(out.shape)

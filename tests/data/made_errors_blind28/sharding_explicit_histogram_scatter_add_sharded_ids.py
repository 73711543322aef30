import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def token_counts(token_ids, vocab_size=32000):
    # how often each token of the vocabulary occurs in the global batch
    return jnp.zeros(vocab_size, jnp.int32).at[token_ids].add(1)


tokens = jax.device_put(jnp.arange(8 * 4096) % 32000, P("data"))
print(token_counts(tokens).sum())

import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)


@jax.jit
def sparse_sgd(table, token_ids, row_grads, lr=0.1):
    # update only the embedding rows the batch touched
    return table.at[token_ids].add(-lr * row_grads)


table = jax.device_put(jnp.zeros((32_000, 256)), P("model", None))  # vocab-sharded
token_ids = jax.device_put(jnp.arange(64), P("data"))
row_grads = jax.device_put(jnp.ones((64, 256)), P("data", None))
print(sparse_sgd(table, token_ids, row_grads).sharding)

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

jax.config.update("jax_explain_cache_misses", True)
mesh = jax.make_mesh((8,), ("data",))


@jax.jit
def loss(w, x):
    return jnp.mean((x @ w) ** 2)


w = jnp.ones(16)
for step in range(4):
    x = np.ones((64, 16), np.float32)
    if step % 2:
        # batches from the prefetch thread arrive already sharded
        x = jax.device_put(x, NamedSharding(mesh, P("data")))
    loss(w, x)

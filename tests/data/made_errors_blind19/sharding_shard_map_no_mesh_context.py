import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def local_histogram(values):
    counts = jnp.bincount(values, length=16)
    return jax.lax.psum(counts, "data")


histogram = jax.shard_map(local_histogram, in_specs=P("data"), out_specs=P())
mesh = jax.make_mesh((8,), ("data",))
values = jnp.arange(1024) % 16
print(jax.jit(histogram)(values))

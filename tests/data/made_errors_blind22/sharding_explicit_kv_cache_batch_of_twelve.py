import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


def init_cache(batch_size, max_len=1024, heads=8, head_dim=64):
    # one cache slot per request, the requests split over the data axis
    shape = (batch_size, max_len, heads, head_dim)
    return jnp.zeros(shape, jnp.bfloat16, out_sharding=P("data"))


cache = init_cache(12)  # twelve requests in this serving batch
print(cache.sharding)

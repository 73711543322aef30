import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
sharding = NamedSharding(mesh, P("data"))
batch = np.random.default_rng(0).normal(size=(256, 128)).astype(np.float32)


def load_shard(index):
    # each device should get its slice of the batch
    return batch


global_batch = jax.make_array_from_callback(batch.shape, sharding, load_shard)
print(global_batch.sharding)

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
sharding = NamedSharding(mesh, P("data"))

# the loader yields one slice of the global batch per local device
local_batches = [np.ones((16, 32), np.float32) for _ in range(4)]  # written for a 4-chip host
arrays = [jax.device_put(b, d) for b, d in zip(local_batches, jax.local_devices())]
batch = jax.make_array_from_single_device_arrays((128, 32), sharding, arrays)
print(batch.shape)

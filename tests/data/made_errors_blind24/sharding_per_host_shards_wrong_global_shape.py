import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
sharding = NamedSharding(mesh, P("data"))
# each device gets its own slice of the host's batch of 64 examples
local = [jax.device_put(np.ones((8, 128), np.float32), d) for d in jax.devices()]
global_batch = jax.make_array_from_single_device_arrays((32, 128), sharding, local)
print(global_batch.shape)

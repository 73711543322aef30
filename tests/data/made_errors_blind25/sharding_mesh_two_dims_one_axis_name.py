import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

# 2 replicas of a 4-way tensor-parallel model
devices = np.array(jax.devices()).reshape(2, 4)
mesh = Mesh(devices, ("data",))
w = jax.device_put(jnp.ones((1024, 1024)), NamedSharding(mesh, P(None, "model")))
print(w.sharding)

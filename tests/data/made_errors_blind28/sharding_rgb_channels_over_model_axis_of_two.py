import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))
# the same spec as the activations (batch, height, width, features) use
spec = NamedSharding(mesh, P("data", None, None, "model"))
images = jax.device_put(jnp.ones((32, 64, 64, 3)), spec)
print(images.sharding)

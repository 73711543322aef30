import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


def load_batch(step):
    images = jnp.ones((256, 32, 32, 3)) * step
    # split the batch over the data-parallel devices
    return jax.device_put(images, P("data"))


print(load_batch(0).sharding)

import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def two_views(key, images):
    # SimCLR: every image appears twice in the batch, each copy augmented on its own
    both = jnp.tile(images, (2, 1, 1, 1))
    noise = jax.random.normal(key, both.shape, out_sharding=both.sharding) * 0.1
    return both + noise


images = jax.device_put(jnp.ones((256, 32, 32, 3)), P("data"))
print(two_views(jax.random.key(0), images).shape)

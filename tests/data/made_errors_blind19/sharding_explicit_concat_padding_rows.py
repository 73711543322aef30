import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def pad_batch(batch):
    # pad the last batch of the epoch up to the fixed size with zero rows
    padding = jnp.zeros((64 - batch.shape[0], batch.shape[1]))
    return jnp.concatenate([batch, padding], axis=0)


batch = jax.device_put(jnp.ones((48, 32)), P("data"))
print(pad_batch(batch).shape)

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

data_mesh = jax.make_mesh((8,), ("data",))
model_mesh = jax.make_mesh((4, 2), ("data", "model"))
params = jax.device_put(jnp.ones((16, 4)), NamedSharding(model_mesh, P(None, "model")))
batch = jax.device_put(jnp.ones((64, 16)), NamedSharding(data_mesh, P("data")))


@jax.jit
def forward(params, batch):
    return batch @ params


print(forward(params, batch).shape)

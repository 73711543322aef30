import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
data_sharding = NamedSharding(mesh, P("data"))


def loss(w, x):
    return jnp.mean((x @ w) ** 2)


step = jax.jit(jax.grad(loss), in_shardings=(NamedSharding(mesh, P()), data_sharding))
w = jnp.ones(16)
# the loader pins each batch to the first device
batch = jax.device_put(jnp.ones((64, 16)), jax.devices()[0])
print(step(w, batch).shape)

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
batch_sharding = NamedSharding(mesh, P("data", None))


def per_example_loss(w, x):
    return ((x @ w) ** 2).mean(axis=-1)


step = jax.jit(per_example_loss, out_shardings=batch_sharding)
x = jax.device_put(jnp.ones((64, 32)), batch_sharding)
print(step(jnp.ones((32, 8)), x).shape)

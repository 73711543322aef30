import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
from functools import partial

mesh = jax.make_mesh((jax.device_count(),), ("data",))
batch_sharding = NamedSharding(mesh, P("data"))

@partial(jax.jit, out_shardings=batch_sharding)
def loss_fn(w, x):
    return jnp.mean((x @ w) ** 2)

x = jax.device_put(jnp.ones((64, 512)), batch_sharding)
print(loss_fn(jnp.ones((512, 16)), x))

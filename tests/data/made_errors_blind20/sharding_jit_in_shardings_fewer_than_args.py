import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
batch_sharding = NamedSharding(mesh, P("data"))
replicated = NamedSharding(mesh, P())


def train_step(params, batch, labels):
    logits = batch @ params
    return jnp.mean((logits - labels) ** 2)


step = jax.jit(train_step, in_shardings=(replicated, batch_sharding))
print(step(jnp.ones((16, 1)), jnp.ones((64, 16)), jnp.ones((64, 1))))

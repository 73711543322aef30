import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


def sgd_update(params, grads, lr):
    return params - lr * jax.lax.pmean(grads, "data")


update = jax.shard_map(sgd_update, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())
params = jnp.ones(4)
grads = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P("data")))
params = update(params, grads, 0.1)

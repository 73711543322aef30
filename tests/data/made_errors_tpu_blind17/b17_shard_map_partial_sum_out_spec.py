import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("data",))

def partial_loss(w, x):
    return jnp.sum((x @ w) ** 2)

loss_fn = jax.shard_map(partial_loss, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())
w = jnp.ones((128, 16))
x = jax.device_put(jnp.ones((64, 128)), NamedSharding(mesh, P("data")))
print(jax.jit(loss_fn)(w, x))

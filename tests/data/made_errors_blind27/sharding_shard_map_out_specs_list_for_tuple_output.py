import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


def local_step(w, x):
    loss, grads = jax.value_and_grad(lambda w: jnp.mean((x @ w) ** 2))(w)
    return jax.lax.pmean(loss, "data"), jax.lax.pmean(grads, "data")


step = jax.jit(jax.shard_map(local_step, mesh=mesh, in_specs=(P(), P("data")),
                             out_specs=[P(), P()]))
x = jax.device_put(jnp.ones((64, 16)), NamedSharding(mesh, P("data")))
loss, grads = step(jnp.ones((16, 4)), x)
print(loss)

import jax
import jax.numpy as jnp
from functools import partial

from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


@jax.jit
@partial(jax.shard_map, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())
def grad_step(w, x):
    g = jax.lax.pmean(jax.grad(lambda w: ((x @ w) ** 2).mean())(w), "data")
    if jax.lax.axis_index("data") == 0:
        jax.debug.print("grad norm {n}", n=jnp.linalg.norm(g))
    return w - 0.1 * g


x = jax.device_put(jnp.ones((64, 16)), NamedSharding(mesh, P("data")))
print(grad_step(jnp.ones(16), x).shape)

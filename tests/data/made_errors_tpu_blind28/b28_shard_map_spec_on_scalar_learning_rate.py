import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("data",))

def sgd_step(w, x, lr):
    grad = jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w)
    return w - lr * jax.lax.pmean(grad, "data")

step = jax.shard_map(sgd_step, mesh=mesh, in_specs=(P(), P("data"), P("data")), out_specs=P())
w = step(jnp.ones((128, 10)), jnp.ones((64, 128)), jnp.float32(0.01))
print(w.shape)

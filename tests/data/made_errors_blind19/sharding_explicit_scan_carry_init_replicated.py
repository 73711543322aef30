import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def accumulate_grads(microbatches, w):
    # gradient accumulation over microbatches, each sharded over the batch
    def body(acc, mb):
        g = jax.grad(lambda w: jnp.mean((mb @ w) ** 2))(w)
        return acc + mb * g.sum(), None

    total, _ = jax.lax.scan(body, jnp.zeros(microbatches.shape[1:]), microbatches)
    return total


microbatches = jax.device_put(jnp.ones((4, 64, 16)), P(None, "data"))
print(accumulate_grads(microbatches, jnp.ones(16)).shape)

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("model",))
w_sharding = NamedSharding(mesh, P(None, "model"))

@jax.jit
def init():
    return jnp.ones((512, 1024)), jnp.zeros((1024,))

dense = jax.jit(lambda w, b, x: x @ w + b, in_shardings=(w_sharding, w_sharding, None))
w, b = init()
print(dense(w, b, jnp.ones((8, 512))).shape)

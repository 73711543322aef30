import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))


@jax.jit
def mlp(x, w1, w2):
    h = jax.nn.gelu(x @ w1)
    h = jax.lax.with_sharding_constraint(h, P("data", "model"))
    return h @ w2


x, w1, w2 = jnp.ones((8, 16)), jnp.ones((16, 32)), jnp.ones((32, 4))
print(mlp(x, w1, w2).shape)

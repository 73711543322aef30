import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))


def local_matmul(x, w):
    return x @ w


# manual over the data axis only; the model axis is left to the compiler
f = jax.shard_map(local_matmul, mesh=mesh, in_specs=(P("data"), P(None, "model")),
                  out_specs=P("data"), axis_names={"data"})
print(jax.jit(f)(jnp.ones((8, 16)), jnp.ones((16, 4))).shape)

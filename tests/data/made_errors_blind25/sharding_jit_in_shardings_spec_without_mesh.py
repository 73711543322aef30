import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


def train_step(w, batch):
    return w - 0.1 * jax.grad(lambda w: ((batch @ w) ** 2).mean())(w)


step = jax.jit(train_step, in_shardings=(P(), P("data")), out_shardings=P())
w = step(jnp.ones(64), jnp.ones((256, 64)))
print(w.sharding)

import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "seq"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)


@jax.jit
def rnn(w, xs):
    def cell(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h

    h0 = jnp.zeros(xs.shape[1:], out_sharding=P("data", None))
    return jax.lax.scan(cell, h0, xs)[1]


# sequence parallelism: the long time axis split over the "seq" devices
xs = jax.device_put(jnp.ones((4096, 8, 64)), P("seq", "data", None))
print(rnn(jnp.eye(64) * 0.5, xs).sharding)

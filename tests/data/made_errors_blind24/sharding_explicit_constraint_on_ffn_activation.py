import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)


@jax.jit
def ffn(x, w_in, w_out):
    h = jax.nn.gelu(x @ w_in)
    # Megatron-style: keep the hidden activation split over the model axis
    h = jax.lax.with_sharding_constraint(h, P("data", "model"))
    return h @ w_out


x = jax.device_put(jnp.ones((8, 64)), P("data", None))
w_in = jax.device_put(jnp.ones((64, 256)), P())
w_out = jax.device_put(jnp.ones((256, 64)), P())
print(ffn(x, w_in, w_out).sharding)

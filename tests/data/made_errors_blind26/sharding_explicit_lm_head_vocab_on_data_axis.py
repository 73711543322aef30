import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)


@jax.jit
def next_token_logits(hidden, lm_head):
    return hidden @ lm_head


hidden = jax.device_put(jnp.ones((16, 512)), P("data", None))
# the 32k-row output embedding split over the devices, by the wrong mesh axis
lm_head = jax.device_put(jnp.ones((512, 32_000)), P(None, "data"))
print(next_token_logits(hidden, lm_head).sharding)

import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("model",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)
# activations (batch, seq, heads, head_dim), head_dim split over the model axis
attn = jax.device_put(jnp.ones((4, 16, 4, 8)), P(None, None, None, "model"))


@jax.jit
def merge_heads(x):
    return x.reshape(x.shape[0], x.shape[1], -1)


print(merge_heads(attn).shape)

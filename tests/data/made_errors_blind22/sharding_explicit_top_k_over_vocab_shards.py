import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("model",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def top_candidates(hidden, unembed):
    # the vocabulary is split over the model axis; keep the 40 best tokens
    logits = hidden @ unembed
    return jax.lax.top_k(logits, 40)


unembed = jax.device_put(jnp.ones((256, 32000)), NamedSharding(mesh, P(None, "model")))
values, ids = top_candidates(jnp.ones((4, 256)), unembed)
print(ids.shape)

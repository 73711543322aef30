import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def contrastive_logits(embeddings, temperature=0.1):
    # every example against every other in the batch
    return embeddings @ embeddings.T / temperature


embeddings = jax.device_put(jnp.ones((64, 16)), P("data"))
print(contrastive_logits(embeddings).shape)

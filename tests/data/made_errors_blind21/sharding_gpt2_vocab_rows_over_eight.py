import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("model",))
vocab_sharding = NamedSharding(mesh, P("model", None))


@jax.jit
def logits(embedding, hidden):
    return hidden @ embedding.T


embedding = jax.device_put(jnp.zeros((50257, 128)), vocab_sharding)
print(logits(embedding, jnp.ones((4, 128))).shape)

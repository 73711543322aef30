import jax
import jax.numpy as jnp


@jax.jit
def attention_weights(q, k):
    scores = jnp.einsum("bqd,bkd->bqkd", q, k) / jnp.sqrt(q.shape[-1])
    return jax.nn.softmax(scores, axis=2)

q = jnp.ones((16, 2048, 128), jnp.float32)
k = jnp.ones((16, 2048, 128), jnp.float32)
weights = attention_weights(q, k)
print(weights.shape)

import jax
import jax.numpy as jnp


@jax.jit
def attention_scores(q, k):
    return jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(q.shape[-1])

q = jnp.ones((4, 512, 32, 128), jnp.bfloat16)
k = jnp.ones((4, 512, 8, 128), jnp.bfloat16)
print(attention_scores(q, k).shape)

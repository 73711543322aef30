import jax
import jax.numpy as jnp


@jax.jit
def attention_logits(tokens, table):
    x = table[tokens]  # (batch, seq, dim)
    q = k = x.reshape(x.shape[0], x.shape[1], 8, -1)
    return jnp.einsum("bqhd,bkhd->bhqk", q, k)


table = jnp.ones((1000, 64))
document = jnp.zeros((1, 200_000), jnp.int32)
logits = attention_logits(document, table)
print(logits[0, 0, 0, 0])

import jax
import jax.numpy as jnp


@jax.jit
def vocab_coverage(token_ids):
    seen = jnp.unique(token_ids)
    return seen.shape[0] / 32000

print(vocab_coverage(jnp.arange(4096) % 1000))

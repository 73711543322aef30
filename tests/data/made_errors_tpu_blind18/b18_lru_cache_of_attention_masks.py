import jax
import jax.numpy as jnp

from functools import lru_cache

@lru_cache(maxsize=None)
def causal_bias(seq_len):
    return jnp.where(jnp.tri(seq_len, dtype=bool), 0.0, -jnp.inf)

for step, seq_len in enumerate(range(16384, 16384 + 20 * 512, 512)):
    bias = causal_bias(seq_len)
    print(step, seq_len, bias.shape, bias.dtype)

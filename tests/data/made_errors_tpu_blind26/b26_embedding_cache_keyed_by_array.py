import jax
import jax.numpy as jnp


table = jnp.ones((1000, 64), jnp.float32)
cache = {}

def embed(token_ids):
    if token_ids not in cache:
        cache[token_ids] = table[token_ids].mean(axis=0)
    return cache[token_ids]

print(embed(jnp.array([1, 2, 3])).shape)

import jax
import jax.numpy as jnp


token_ids = jnp.array([5, 3, 5, 9, 3, 5])
counts = {}
for token in token_ids:
    counts[token] = counts.get(token, 0) + 1
print(sorted(counts.items()))

import jax
import jax.numpy as jnp


# expected co-occurrence counts under independence, for PMI over a 400k-word vocabulary
unigram = jnp.ones(400_000) / 400_000
expected = jnp.outer(unigram, unigram)
print(expected[:3, :3])

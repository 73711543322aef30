import jax
import jax.numpy as jnp


vocab_size = 32000
key = jax.random.key(0)
negatives = jax.random.choice(key, vocab_size, shape=(50000,), replace=False)
print(negatives.shape)

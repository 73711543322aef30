import jax
import jax.numpy as jnp


def negative_samples(key, num_items, num_negatives):
    # word2vec-style negatives, drawn without repeats
    return jax.random.choice(key, num_items, (num_negatives,), replace=False)


vocab_size = 50
print(negative_samples(jax.random.key(0), vocab_size, 64))

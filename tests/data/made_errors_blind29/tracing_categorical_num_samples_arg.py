import jax
import jax.numpy as jnp


@jax.jit
def sample_next_tokens(key, logits, num_samples):
    # several continuations per prompt for best-of-n decoding
    return jax.random.categorical(key, logits, shape=(num_samples, logits.shape[0]))


print(sample_next_tokens(jax.random.key(0), jnp.zeros((4, 32000)), 8).shape)

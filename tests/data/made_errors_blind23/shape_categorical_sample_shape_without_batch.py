import jax
import jax.numpy as jnp


@jax.jit
def sample_next_tokens(key, logits, temperature=0.8):
    # four candidate continuations for each prompt in the batch
    return jax.random.categorical(key, logits / temperature, shape=(4,))


logits = jnp.zeros((8, 32000))  # batch of 8 prompts x vocabulary
print(sample_next_tokens(jax.random.key(0), logits).shape)

import jax
import jax.numpy as jnp


def sequence_mean(tokens, length):
    # mean of the embeddings of the real (unpadded) tokens
    return tokens[:length].mean(axis=0)


embeddings = jnp.ones((16, 128, 32))
lengths = jnp.full((16,), 100)
print(jax.vmap(sequence_mean)(embeddings, lengths).shape)

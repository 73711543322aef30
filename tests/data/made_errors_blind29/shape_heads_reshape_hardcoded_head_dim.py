import jax
import jax.numpy as jnp

NUM_HEADS = 16  # raised from 12 for the larger model; d_model stays 768


def split_heads(x):
    batch, seq, _ = x.shape
    return x.reshape(batch, seq, NUM_HEADS, 64).transpose(0, 2, 1, 3)


q = jnp.ones((2, 128, 768))
print(jax.jit(split_heads)(q).shape)

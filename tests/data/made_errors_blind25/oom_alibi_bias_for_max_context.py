import jax
import jax.numpy as jnp


NUM_HEADS, MAX_LEN = 32, 131_072

# ALiBi: precompute the bias of every head for the longest context we serve
slopes = 2.0 ** (-8.0 * jnp.arange(1, NUM_HEADS + 1) / NUM_HEADS)
positions = jnp.arange(MAX_LEN)
alibi_bias = slopes[:, None, None] * (positions[None, None, :] - positions[None, :, None])
print(alibi_bias[0, 0, :4])

import jax
import jax.numpy as jnp


@jax.jit
def expand_segments(values, lengths):
    # one row per token: repeat each segment's value by its length
    return jnp.repeat(values, lengths)


values = jnp.array([0.5, 1.5, 2.5])
lengths = jnp.array([2, 1, 3])
print(expand_segments(values, lengths))

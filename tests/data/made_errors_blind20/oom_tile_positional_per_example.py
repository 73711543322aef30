import jax
import jax.numpy as jnp


@jax.jit
def add_positions(tokens, pos_table):
    # one copy of the position table for every example in the dataset
    positions = jnp.tile(pos_table[None], (tokens.shape[0], 1, 1))
    return tokens[..., None] + positions


tokens = jnp.zeros((100_000, 2048), jnp.float32)  # the whole training split
out = add_positions(tokens, jnp.ones((2048, 1024)))
print(out.shape, out[0, 0, 0])

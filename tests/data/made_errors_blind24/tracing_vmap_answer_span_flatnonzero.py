import jax
import jax.numpy as jnp


def answer_span(start_mask):
    # extractive QA: the token positions the annotators marked as the answer
    positions = jnp.flatnonzero(start_mask)
    return positions.min(), positions.max()


masks = jnp.zeros((16, 384), bool).at[:, 40:47].set(True)
starts, ends = jax.vmap(answer_span)(masks)
print(starts[:4], ends[:4])

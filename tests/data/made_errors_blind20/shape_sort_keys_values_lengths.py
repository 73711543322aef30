import jax
import jax.numpy as jnp


@jax.jit
def rank_candidates(scores, candidate_ids):
    # sort the candidates by score, carrying their ids along
    _, ids = jax.lax.sort((-scores, candidate_ids), num_keys=1)
    return ids[:10]


scores = jnp.linspace(0.0, 1.0, 100)
candidate_ids = jnp.arange(128)
print(rank_candidates(scores, candidate_ids))

import jax
import jax.numpy as jnp


@jax.jit
def recommend(scores, seen_items):
    # rank only the catalogue items the user has not interacted with yet
    candidates = jnp.setdiff1d(jnp.arange(scores.shape[0]), seen_items)
    return candidates[jnp.argsort(-scores[candidates])][:10]


print(recommend(jnp.linspace(0.0, 1.0, 500), jnp.array([3, 17, 42])))

import jax
import jax.numpy as jnp


scores = jax.random.uniform(jax.random.key(0), (1_600_000_000,))
print("items", scores.shape[0])

@jax.jit
def top_items(scores):
    return jnp.argsort(-scores)[:100]

best = top_items(scores)
print(best)

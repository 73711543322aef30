import jax
import jax.numpy as jnp

@jax.jit
def top_scores(x):
    scores = x @ x.T
    return jnp.sort(scores, axis=1)[:, -4:]

x = jnp.ones((72000, 128), jnp.float32)
print(top_scores(x))

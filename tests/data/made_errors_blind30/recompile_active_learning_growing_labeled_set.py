import jax
import jax.numpy as jnp

jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def fit_ridge(x, y):
    gram = x.T @ x + 1e-3 * jnp.eye(x.shape[1])
    return jnp.linalg.solve(gram, x.T @ y)


pool_x, pool_y = jnp.ones((5000, 32)), jnp.ones(5000)
labeled = 100
for round_ in range(4):
    w = fit_ridge(pool_x[:labeled], pool_y[:labeled])
    labeled += 100  # the annotators labeled another hundred examples this round
print(w.shape)

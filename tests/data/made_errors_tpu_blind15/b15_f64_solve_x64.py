import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)

def ridge_weights(features, targets, lam=1e-3):
    gram = features.T @ features + lam * jnp.eye(features.shape[1])
    return jnp.linalg.solve(gram, features.T @ targets)

features = jax.random.normal(jax.random.key(0), (1000, 64))
targets = jax.random.normal(jax.random.key(1), (1000,))
print(ridge_weights(features, targets)[:4])

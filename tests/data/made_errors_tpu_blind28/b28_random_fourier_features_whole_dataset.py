import jax
import jax.numpy as jnp


@jax.jit
def fit_random_features(x, y, omega):
    z = jnp.cos(x @ omega) * (2.0 / omega.shape[1]) ** 0.5
    gram = z.T @ z + 1e-3 * jnp.eye(omega.shape[1])
    return jnp.linalg.solve(gram, z.T @ y)

x = jax.random.normal(jax.random.key(0), (1048576, 64))
y = jnp.sin(x[:, 0])
omega = jax.random.normal(jax.random.key(1), (64, 8192))
coef = fit_random_features(x, y, omega)
print(coef[:4])

# XLA_FLAGS extra: ''; env: {}
import jax
import jax.numpy as jnp


@jax.jit
def f(a, b):
    lower = jnp.linalg.cholesky(a @ a.T + jnp.eye(a.shape[0]))
    values, vectors = jnp.linalg.eigh(a + a.T)
    q, r = jnp.linalg.qr(a)
    solved = jnp.linalg.solve(a + 3 * jnp.eye(a.shape[0]), b)
    singular = jnp.linalg.svd(a, compute_uv=False)
    spectrum = jnp.fft.fft(b[:, 1])
    return lower, values, vectors, q, r, solved, singular, spectrum


f(jnp.eye(8) + 0.1, jnp.ones((8, 2)))

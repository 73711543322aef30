import jax
import jax.numpy as jnp


jax.config.update("jax_default_matmul_precision", "bfloat16")


@jax.jit
def gp_log_likelihood(x, y, lengthscale):
    # the whole model runs in bfloat16 to match the TPU training run
    sq = ((x[:, None, :] - x[None, :, :]) ** 2).sum(-1)
    k = jnp.exp(-sq / lengthscale) + 1e-2 * jnp.eye(x.shape[0], dtype=x.dtype)
    chol = jnp.linalg.cholesky(k)
    alpha = jax.scipy.linalg.cho_solve((chol, True), y)
    return -0.5 * y @ alpha - jnp.log(jnp.diag(chol)).sum()


x = jnp.ones((64, 3), jnp.bfloat16) * jnp.arange(64, dtype=jnp.bfloat16)[:, None]
print(gp_log_likelihood(x, jnp.ones(64, jnp.bfloat16), jnp.bfloat16(2.0)))

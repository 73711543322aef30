import jax
import jax.numpy as jnp


def gp_log_marginal_likelihood(kernel_matrix, y):
    # Gaussian-process evidence, as the bf16 training config runs it
    _, logdet = jnp.linalg.slogdet(kernel_matrix)
    alpha = jnp.linalg.solve(kernel_matrix, y)
    return -0.5 * (y @ alpha) - 0.5 * logdet


k = jnp.eye(50, dtype=jnp.bfloat16)
print(jax.jit(gp_log_marginal_likelihood)(k, jnp.ones(50, jnp.bfloat16)))

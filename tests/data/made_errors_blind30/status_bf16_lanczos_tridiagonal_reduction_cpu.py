import jax
import jax.numpy as jnp


@jax.jit
def spectrum_bounds(hessian_block):
    # reduce the curvature block to tridiagonal form, then read off its extreme eigenvalues
    _, diag, off_diag, _ = jax.lax.linalg.tridiagonal(hessian_block, lower=True)
    eigs = jax.scipy.linalg.eigh_tridiagonal(diag.astype(jnp.float32), off_diag.astype(jnp.float32),
                                             eigvals_only=True)
    return eigs.min(), eigs.max()


h = jnp.eye(64, dtype=jnp.bfloat16) * 2.0  # the model's weights and curvature are bf16
print(spectrum_bounds(h))

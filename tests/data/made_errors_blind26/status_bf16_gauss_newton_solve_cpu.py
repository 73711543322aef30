import jax
import jax.numpy as jnp


@jax.jit
def gauss_newton_step(jac, residual, damping=1e-3):
    # Levenberg-Marquardt on the bf16 model's Jacobian
    jtj = jac.T @ jac + damping * jnp.eye(jac.shape[1], dtype=jac.dtype)
    return jnp.linalg.solve(jtj, jac.T @ residual)


jac = jnp.ones((256, 32), jnp.bfloat16) + jnp.eye(256, 32, dtype=jnp.bfloat16)
print(gauss_newton_step(jac, jnp.ones(256, jnp.bfloat16))[:4])

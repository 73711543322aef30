import jax
import jax.numpy as jnp
from jax import export


def lyapunov_solve(a, q):
    # Bartels-Stewart: reduce A to Schur form, solve the triangular system, map back
    t, u = jax.scipy.linalg.schur(a)
    f = u.T @ q @ u
    y = jax.scipy.linalg.solve_triangular(t, f, lower=False)
    return u @ y @ u.T


# the cluster we deploy to has AMD GPUs
exp = export.export(jax.jit(lyapunov_solve), platforms=["rocm"])(jnp.eye(4), jnp.eye(4))

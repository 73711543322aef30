import jax
import jax.numpy as jnp


def spline_second_derivatives(y):
    # natural cubic spline on a unit grid: a tridiagonal system for the curvatures
    n = y.shape[0]
    dl = jnp.ones(n, y.dtype).at[0].set(0)
    du = jnp.ones(n, y.dtype).at[-1].set(0)
    d = jnp.full(n, 4.0, y.dtype)
    rhs = 6.0 * (jnp.roll(y, -1) - 2 * y + jnp.roll(y, 1))
    return jax.lax.linalg.tridiagonal_solve(dl, d, du, rhs[:, None])[:, 0]


y = jnp.sin(jnp.linspace(0, 3, 128)).astype(jnp.bfloat16)  # the model's bf16 output curve
print(jax.jit(spline_second_derivatives)(y)[:4])

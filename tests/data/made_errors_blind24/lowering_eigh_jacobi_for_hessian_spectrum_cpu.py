import jax
import jax.numpy as jnp


@jax.jit
def hessian_spectrum(h):
    # Jacobi is said to be more accurate for small eigenvalues
    return jax.lax.linalg.eigh(h, implementation=jax.lax.linalg.EighImplementation.JACOBI)


print(hessian_spectrum(jnp.eye(32))[1][:4])

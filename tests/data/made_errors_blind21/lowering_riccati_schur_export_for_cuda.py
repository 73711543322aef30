import jax
import jax.numpy as jnp
from jax import export


def stable_subspace(hamiltonian):
    # Riccati solver: the Schur vectors of the Hamiltonian matrix span the stable subspace
    t, z = jax.scipy.linalg.schur(hamiltonian)
    n = hamiltonian.shape[0] // 2
    return z[n:, :n] @ jnp.linalg.inv(z[:n, :n])


# the controller is served from the GPU cluster
exp = export.export(jax.jit(stable_subspace), platforms=["cuda"])(jnp.eye(8))
print(exp.out_avals)

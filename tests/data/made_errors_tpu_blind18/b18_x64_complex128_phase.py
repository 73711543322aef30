import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)

@jax.jit
def evolve(psi, energies, t):
    return jnp.exp(-1j * energies * t) * psi

psi = jnp.ones((1024,), jnp.complex128) / 32
energies = jnp.linspace(0.0, 1.0, 1024)
print(evolve(psi, energies, 0.1)[:4])

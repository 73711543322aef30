import jax
import jax.numpy as jnp


@jax.jit
def window_energy(signal, start):
    window = signal[start:start + 256]
    return jnp.sum(window ** 2)

print(window_energy(jnp.ones(4096), 128))

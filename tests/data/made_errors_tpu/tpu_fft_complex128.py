import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)
x = jnp.ones(256, jnp.complex128)
print(jnp.fft.fft(x))

import jax
import jax.numpy as jnp


@jax.jit
def reverb(recordings, impulse):
    n = recordings.shape[-1] + impulse.shape[-1] - 1
    spectrum = jnp.fft.rfft(recordings, n) * jnp.fft.rfft(impulse, n)
    return jnp.fft.irfft(spectrum, n)

recordings = jnp.ones((256, 4194304), jnp.float32)
impulse = jnp.ones((1048576,), jnp.float32) / 1048576
wet = reverb(recordings, impulse)
print(wet.shape)

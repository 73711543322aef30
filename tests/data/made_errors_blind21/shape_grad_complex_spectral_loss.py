import jax
import jax.numpy as jnp


def spectral_loss(w, signal, target_spectrum):
    # match the spectrum of the filtered signal to the target
    spectrum = jnp.fft.rfft(signal * w)
    return jnp.mean(spectrum - target_spectrum) ** 2


signal = jnp.ones(256)
grads = jax.grad(spectral_loss)(jnp.ones(256), signal, jnp.zeros(129))
print(grads.shape)

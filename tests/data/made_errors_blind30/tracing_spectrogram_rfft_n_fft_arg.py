import jax
import jax.numpy as jnp


@jax.jit
def power_spectrogram(frames, n_fft):
    # zero-pad every frame to the FFT size the config asks for
    window = jnp.hanning(frames.shape[-1])
    spectrum = jnp.fft.rfft(frames * window, n=n_fft)
    return jnp.abs(spectrum) ** 2


frames = jnp.ones((98, 400))  # 25 ms frames of 16 kHz audio
print(power_spectrogram(frames, 512).shape)

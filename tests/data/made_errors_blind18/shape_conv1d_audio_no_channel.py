import jax
import jax.numpy as jnp


def encode(waveform, kernel):
    # waveform (batch, time); kernel (out_channels, in_channels, width)
    return jax.lax.conv_general_dilated(waveform, kernel, window_strides=(2,), padding="SAME")


waveform = jnp.ones((4, 16000))
kernel = jnp.ones((32, 1, 9)) / 9
print(jax.jit(encode)(waveform, kernel).shape)

import jax
import jax.numpy as jnp
from jax import export


@jax.jit
def windowed_spectrum(frames):
    window = jnp.hanning(frames.shape[-1])
    return jnp.abs(jnp.fft.rfft(frames * window, axis=-1))


(n,) = export.symbolic_shape("n")  # the frame length the serving config picks
exp = export.export(windowed_spectrum)(jax.ShapeDtypeStruct((100, n), jnp.float32))
print(exp.out_avals)

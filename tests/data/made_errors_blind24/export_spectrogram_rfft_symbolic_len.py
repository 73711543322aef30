import jax
import jax.numpy as jnp
from jax import export


@jax.jit
def power_spectrum(audio):
    return jnp.abs(jnp.fft.rfft(audio, axis=-1)) ** 2


(n,) = export.symbolic_shape("n")  # clips of any length
exp = export.export(power_spectrum)(jax.ShapeDtypeStruct((4, n), jnp.float32))
print(exp.out_avals)

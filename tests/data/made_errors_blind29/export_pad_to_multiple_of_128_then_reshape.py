import jax
import jax.numpy as jnp
from jax import export


def chunked_energy(audio):
    # pad the waveform up to whole 128-sample chunks, then sum each chunk's energy
    pad = (-audio.shape[0]) % 128
    chunks = jnp.pad(audio, (0, pad)).reshape(-1, 128)
    return jnp.sum(chunks**2, axis=-1)


spec = jax.ShapeDtypeStruct(export.symbolic_shape("n"), jnp.float32)
exported = export.export(jax.jit(chunked_energy))(spec)
print(exported.out_avals)

import jax
import jax.numpy as jnp


def spectral_loss(pred, target):
    # compare magnitude spectra of the bf16 decoder output
    spec = lambda s: jnp.abs(jax.lax.fft(s, "RFFT", (s.shape[-1],)))
    return jnp.mean((spec(pred) - spec(target)) ** 2)


pred = jnp.ones((8, 1024), jnp.bfloat16)
print(jax.jit(spectral_loss)(pred, pred * 0.5))

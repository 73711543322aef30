import jax
import jax.numpy as jnp


@jax.jit
def detrend(series):
    # remove a cubic trend from each sensor's series, kept in bf16 to save memory
    t = jnp.linspace(0, 1, series.shape[0], dtype=series.dtype)
    coeffs = jnp.polyfit(t, series, 3)
    return series - jnp.polyval(coeffs, t)


print(detrend(jnp.ones(1000, jnp.bfloat16))[:4])

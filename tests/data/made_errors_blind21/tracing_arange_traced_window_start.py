import jax
import jax.numpy as jnp


@jax.jit
def window(series, start):
    # the 24 readings that follow each forecast origin
    idx = jnp.arange(start, start + 24)
    return series[idx]


print(window(jnp.arange(1000.0), 100).shape)

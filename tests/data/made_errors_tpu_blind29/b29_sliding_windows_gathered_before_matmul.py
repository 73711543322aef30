import jax
import jax.numpy as jnp


@jax.jit
def frame_features(signal, filters):
    width = filters.shape[0]
    starts = jnp.arange(signal.shape[0] - width + 1)
    frames = jax.vmap(lambda s: jax.lax.dynamic_slice(signal, (s,), (width,)))(starts)
    return frames @ filters

signal = jnp.sin(jnp.arange(16777216, dtype=jnp.float32) * 0.01)
filters = jnp.ones((1024, 64), jnp.float32) / 1024
features = frame_features(signal, filters)
print(features.shape)

import jax
import jax.numpy as jnp


key = jax.random.key(0)
layer_keys = jax.random.split(key, 4)
noise = jax.random.normal(layer_keys, (4, 256, 256))
print(noise.std())

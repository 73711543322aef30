import jax
import jax.numpy as jnp


key = jax.random.key(0)
weights_int8 = jnp.ones((4096, 4096), jnp.int8)
noise = jax.random.normal(key, weights_int8.shape, dtype=jnp.int8)
print((weights_int8 + noise).sum())

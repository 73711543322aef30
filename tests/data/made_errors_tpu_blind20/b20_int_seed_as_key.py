import jax
import jax.numpy as jnp


seed = 42
noise = jax.random.normal(seed, (1024, 1024))
print(noise.std())
